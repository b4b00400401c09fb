import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, Events as Api, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
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
      .handle("poll", ({ urlParams }) =>
        Effect.flatMap(Auth.CurrentUser, (caller) =>
          events.pollJson(caller.id, urlParams.after, urlParams.limit)).pipe(
            // the EventsPage schema's shape, written with each event's stored data text (see Events.pollJson)
            Effect.map((json) => HttpServerResponse.text(json, { contentType: "application/json" }))
          ))
      .handle("deliveries", ({ urlParams }) =>
        Effect.flatMap(Auth.CurrentUser, (caller) =>
          deliveries.list(caller.id, urlParams)).pipe(
            Effect.map((list) =>
              new Api.DeliveriesPage({ status: "success", deliveries: list })
            )
          ))
      .handle("redeliver", ({ path }) =>
        Effect.flatMap(Auth.CurrentUser, (caller) =>
          deliveries.redeliver(caller.id, path.id)).pipe(
            Effect.map((delivery) =>
              new Api.DeliveryResponse({ status: "success", delivery })
            )
          ))
      .handle("testWebhook", () =>
        Effect.flatMap(Auth.CurrentUser, deliveries.test))
      .handle("rotateWebhookSecret", () =>
        Effect.flatMap(Auth.CurrentUser, (caller) => secrets.rotate(caller.id)).pipe(
          Effect.map((secret) => new Api.WebhookSecret({ status: "success", secret }))
        ))
  })).pipe(withOnly(Events, Deliveries, WebhookSecrets, Auth.Authentication))
