import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, ShoalApi, Social as Api } from "@shoal/domain"
import { Effect } from "effect"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok } from "../Http/RequestOf.js"
import { Messages } from "../Messages.js"
import { Notifications } from "../Notifications.js"

export const MessagesHttpLive = HttpApiBuilder.group(ShoalApi, "messages", (handlers) =>
  Effect.gen(function*() {
    const messages = yield* Messages
    const notifications = yield* Notifications
    const caller = Auth.CurrentUser
    return handlers
      .handle(
        "sendMessage",
        idempotent("sendMessage", Api.MessageSent, ({ payload }) =>
          Effect.flatMap(caller, (c) =>
            messages.sendTo(c, payload)).pipe(
              Effect.map((message) =>
                ok(Api.MessageSent)({ message })
              )
            ))
      )
      .handle("listMessages", ({ urlParams }) =>
        Effect.flatMap(caller, (c) => messages.list(c, urlParams)).pipe(
          Effect.map((list) => new Api.MessageList({ status: "success", ...list }, true))
        ))
      .handle("markMessagesRead", ({ payload }) =>
        Effect.flatMap(caller, (c) => messages.markRead(c, payload)).pipe(
          Effect.map((marked) => new Api.MarkedRead({ status: "success", marked }))
        ))
      .handle("listMessageRequests", () =>
        Effect.flatMap(caller, (c) => messages.requests(c)).pipe(
          Effect.map((requests) => new Api.MessageRequests({ status: "success", requests }, true))
        ))
      .handle("approveMessageRequest", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          messages.approve(c, path.request_id)).pipe(
            Effect.map((messages) =>
              ok(Api.RequestDecided)({ request_id: path.request_id, state: "approved", messages })
            )
          ))
      .handle("declineMessageRequest", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          messages.decline(c, path.request_id)).pipe(
            Effect.map((messages) =>
              ok(Api.RequestDecided)({ request_id: path.request_id, state: "declined", messages })
            )
          ))
      .handle("listNotifications", ({ urlParams }) =>
        Effect.flatMap(caller, (c) =>
          notifications.list(c, urlParams)).pipe(
            Effect.map((notifications) =>
              ok(Api.NotificationList)({ notifications })
            )
          ))
      .handle("markNotificationsRead", ({ payload }) =>
        Effect.flatMap(caller, (c) =>
          notifications.markRead(c, payload)).pipe(
            Effect.map((marked) =>
              new Api.MarkedRead({ status: "success", marked })
            )
          ))
  })).pipe(withOnly(Messages, Notifications, Idempotency, Auth.Authentication))
