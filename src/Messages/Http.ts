import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, type Ids, ShoalApi, Social as Api } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok } from "../Http/RequestOf.js"
import { Messages } from "../Messages.js"
import { Notifications } from "../Notifications.js"

export const MessagesHttpLive = HttpApiBuilder.group(ShoalApi, "messages", (handlers) =>
  Effect.gen(function*() {
    const messages = yield* Messages
    const notifications = yield* Notifications
    const caller = currentUser
    const marked = (marked: number) => new Api.MarkedRead({ status: "success", marked })
    const decided = (request_id: Ids.MessageId, state: "approved" | "declined") => (messages: number) =>
      ok(Api.RequestDecided)({ request_id, state, messages })
    return handlers
      .handle(
        "sendMessage",
        idempotent("sendMessage", Api.MessageSent, ({ payload }) =>
          Effect.flatMap(caller, (c) =>
            Effect.map(messages.sendTo(c, payload), (message) =>
              ok(Api.MessageSent)({ message }))))
      )
      .handle("listMessages", ({ urlParams }) =>
        Effect.flatMap(caller, (c) =>
          Effect.map(messages.list(c, urlParams), (list) =>
            new Api.MessageList({ status: "success", ...list }, true))))
      .handle("markMessagesRead", ({ payload }) =>
        Effect.flatMap(caller, (c) =>
          Effect.map(messages.markRead(c, payload), marked)))
      .handle("listMessageRequests", () =>
        Effect.flatMap(caller, (c) =>
          Effect.map(messages.requests(c), (requests) =>
            new Api.MessageRequests({ status: "success", requests }, true))))
      .handle("approveMessageRequest", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          Effect.map(messages.approve(c, path.request_id), decided(path.request_id, "approved"))))
      .handle("declineMessageRequest", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          Effect.map(messages.decline(c, path.request_id), decided(path.request_id, "declined"))))
      .handle("listNotifications", ({ urlParams }) =>
        Effect.flatMap(caller, (c) =>
          Effect.map(notifications.list(c, urlParams), (notifications) =>
            ok(Api.NotificationList)({ notifications }))))
      .handle("markNotificationsRead", ({ payload }) =>
        Effect.flatMap(caller, (c) =>
          Effect.map(notifications.markRead(c, payload), marked)))
  })).pipe(withOnly(Messages, Notifications, Idempotency, Auth.Authentication))
