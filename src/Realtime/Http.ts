import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, Events as Api, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { withOnly } from "../Http/LeanContext.js"
import { Events } from "./Events.js"
import { Deliveries } from "./Webhooks/Deliveries.js"
import { WebhookSecrets } from "./Webhooks/Secrets.js"

export const EventsHttpLive = HttpApiBuilder.group(ShoalApi, "events", (handlers) =>
  Effect.gen(function*() {
    const events = yield* Events
    const deliveries = yield* Deliveries
    const secrets = yield* WebhookSecrets
    return handlers
      // the EventsPage schema's shape, written with each event's stored data text (see Events.pollJson)
      .handle("poll", ({ urlParams }) =>
        currentUser.pipe(
          Effect.flatMap((caller) => events.pollJson(caller.id, urlParams.after, urlParams.limit)),
          Effect.map((json) => HttpServerResponse.text(json, { contentType: "application/json" }))
        ))
      .handle("deliveries", ({ urlParams }) =>
        currentUser.pipe(
          Effect.flatMap((caller) => deliveries.list(caller.id, urlParams)),
          Effect.map((list) => new Api.DeliveriesPage({ status: "success", deliveries: list }))
        ))
      .handle("redeliver", ({ path }) =>
        currentUser.pipe(
          Effect.flatMap((caller) => deliveries.redeliver(caller.id, path.id)),
          Effect.map((delivery) => new Api.DeliveryResponse({ status: "success", delivery }))
        ))
      .handle("testWebhook", () => Effect.flatMap(currentUser, deliveries.test))
      .handle("rotateWebhookSecret", () =>
        currentUser.pipe(
          Effect.flatMap((caller) => secrets.rotate(caller.id)),
          Effect.map((secret) => new Api.WebhookSecret({ status: "success", secret }))
        ))
  })).pipe(withOnly(Events, Deliveries, WebhookSecrets, Auth.Authentication))
