import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import * as EventCatalog from "./EventCatalog.js"
import { IntParam, Success, Timestamp } from "./Fields.js"
import { DeliveryId } from "./Ids.js"

/** A position in the event stream: events are numbered by a strictly increasing cursor. */
export const Cursor = Schema.Number.pipe(Schema.int(), Schema.nonNegative()).annotations({ identifier: "Cursor" })

const CursorParam = IntParam({
  min: 0,
  message: "a cursor is a non-negative integer",
  description: "the `next_cursor` of the previous page; omitted: from the oldest event still retained"
})

/** The event envelope: the same on WebSocket, webhooks and polling. */
export const EnvelopeFields = {
  id: Schema.String.annotations({ examples: ["evt_3f2a9c0d4b5e6f708192a3b4c5d6e7f8"] }),
  type: Schema.String.annotations({ examples: ["task.assigned"] }),
  created_at: Timestamp,
  data: Schema.Unknown.annotations({ description: "the event's payload; its fields depend on `type`" })
}

export class Envelope extends Schema.Class<Envelope>("EventEnvelope")(EnvelopeFields) {}

/** A polled event of a type this version does not know (a newer server, or a shape it no longer emits). */
export const UnknownPolledEvent = Schema.Struct({
  cursor: Cursor,
  ...EnvelopeFields,
  // described rather than left to Unknown's `$id: /schemas/unknown`, which would repeat across the document
  data: Schema.Unknown.annotations({ jsonSchema: { type: "object", description: "as the server sent it" } })
}).annotations({ description: "An event of a type added after this document: skip it and keep the cursor." })

/**
 * One event of the poll: a catalog member plus its cursor. The last member takes any other stored event, so the
 * server never fails to encode what it stored and an older client does not reject a newer type; decode `data` with
 * `EventCatalog.decodeEvent` to narrow it.
 */
export const PolledEvent = Schema.Union(
  ...EventCatalog.Event.members.map((m) => Schema.Struct({ cursor: Cursor, ...m.fields })),
  UnknownPolledEvent
).annotations({ identifier: "PolledEvent" })
export type PolledEvent = typeof PolledEvent.Type

export const PollQuery = Schema.Struct({
  after: Schema.optional(CursorParam),
  limit: Schema.optional(
    IntParam({
      min: 1,
      max: 500,
      message: "limit is an integer from 1 to 500",
      description: "at most this many events (default 100)"
    })
  )
})

export class EventsPage extends Schema.Class<EventsPage>("EventsPage")({
  status: Success,
  events: Schema.Array(PolledEvent),
  /** pass it as `after` next time; it is `after` itself when nothing new has arrived */
  next_cursor: Cursor,
  has_more: Schema.Boolean
}) {}

export const DeliveryState = Schema.Literal("pending", "succeeded", "failed")

export class WebhookAttempt extends Schema.Class<WebhookAttempt>("WebhookAttempt")({
  attempt: Schema.Int,
  attempted_at: Timestamp,
  url: Schema.NullOr(Schema.String),
  status_code: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  duration_ms: Schema.Int
}) {}

export class WebhookDelivery extends Schema.Class<WebhookDelivery>("WebhookDelivery")({
  id: DeliveryId,
  event_id: Schema.String,
  event_type: Schema.String,
  event_cursor: Cursor,
  state: DeliveryState,
  attempt_count: Schema.Int,
  next_attempt_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  attempts: Schema.Array(WebhookAttempt)
}) {}

export const DeliveriesQuery = Schema.Struct({
  state: Schema.optional(DeliveryState),
  limit: Schema.optional(
    IntParam({
      min: 1,
      max: 100,
      message: "limit is an integer from 1 to 100",
      description: "at most this many deliveries (default 50)"
    })
  )
})

export class DeliveriesPage extends Schema.Class<DeliveriesPage>("DeliveriesPage")({
  status: Success,
  deliveries: Schema.Array(WebhookDelivery)
}) {}

export class DeliveryResponse extends Schema.Class<DeliveryResponse>("DeliveryResponse")({
  status: Success,
  delivery: WebhookDelivery
}) {}

export class WebhookSecret extends Schema.Class<WebhookSecret>("WebhookSecret")({
  status: Success,
  secret: Schema.String.annotations({ description: "whsec_ + base64; signs webhooks (Standard Webhooks)" })
}) {}

/** What a test delivery met: the receiver's answer, not stored (it is not one of the account's events). */
export class WebhookTestResult extends Schema.Class<WebhookTestResult>("WebhookTestResult")({
  status: Success,
  delivered: Schema.Boolean.annotations({ description: "true when the receiver answered 2xx" }),
  url: Schema.String,
  event_id: Schema.String.annotations({ description: "the test event's `webhook-id` (`evt_test_…`)" }),
  status_code: Schema.NullOr(Schema.Int).annotations({ description: "the receiver's HTTP status; null if none" }),
  error: Schema.NullOr(Schema.String).annotations({ description: "why it failed: no answer, refused, a non-2xx" }),
  duration_ms: Schema.Int
}) {}

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("poll", "/api/agent/events")
      .setUrlParams(PollQuery)
      .addSuccess(EventsPage)
      .annotate(OpenApi.Summary, "Poll the caller's events")
      .annotate(
        OpenApi.Description,
        "The caller's events after the cursor `after`, oldest first: the same stream as the WebSocket " +
          "(`/api/agent/ws`) and webhooks. Resume with `after` = `next_cursor`; `next_cursor` is never null (it is " +
          "`after` when nothing new has arrived) and `has_more` says whether to ask again at once."
      )
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/api/agent/webhooks/deliveries")
      .setUrlParams(DeliveriesQuery)
      .addSuccess(DeliveriesPage)
      .annotate(OpenApi.Summary, "List the caller's webhook deliveries")
      .annotate(
        OpenApi.Description,
        "Deliveries of the caller's events to its `webhook_url`, newest first, each with every attempt (status " +
          "code, error, duration). Filter by `state`."
      )
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/api/agent/webhooks/deliveries/:id/retry")
      .setPath(Schema.Struct({ id: Schema.String.pipe(Schema.maxLength(64)) }))
      .addSuccess(DeliveryResponse)
      .annotate(OpenApi.Summary, "Retry a webhook delivery")
      .annotate(
        OpenApi.Description,
        "Makes one of the caller's deliveries due again at once (a failed one gets one more attempt) and answers " +
          "it. An unknown id is a 404."
      )
  )
  .add(
    HttpApiEndpoint.post("testWebhook", "/api/agent/webhooks/test")
      .addSuccess(WebhookTestResult)
      .annotate(OpenApi.Summary, "Send a test event to the webhook")
      .annotate(
        OpenApi.Description,
        "POSTs one `webhook.test` event to the caller's `webhook_url` at once, signed like every delivery " +
          "(Standard Webhooks, with the current secret), and answers what the receiver did: `delivered` on a 2xx, " +
          "else the status or the error. The same address checks apply (no private addresses, no redirects, a " +
          "timeout). Not retried and not in the delivery log. A 422 when the caller has no `webhook_url`."
      )
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSecret", "/api/account/webhook-secret")
      .addSuccess(WebhookSecret)
      .annotate(OpenApi.Summary, "Rotate the webhook signing secret")
      .annotate(
        OpenApi.Description,
        "Answers a new `whsec_…` secret for the caller. Webhooks are signed with it (Standard Webhooks: " +
          "`webhook-id`, `webhook-timestamp`, `webhook-signature` headers)."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The caller's event stream by polling, and its webhook deliveries.")
{}

// WebSocket frames (GET /api/agent/ws, outside HttpApi): what the server sends and what a client may send.

export const ReadyFrame = Schema.Struct({
  type: Schema.Literal("ready"),
  /** the head of the stream when the socket went live: resume from here with `?after=` */
  cursor: Cursor
})
export const EventFrame = Schema.Struct({ type: Schema.Literal("event"), cursor: Cursor, event: Envelope })
export type EventFrame = typeof EventFrame.Type
/** An event frame as a client reads it: the envelope decoded into the catalog. */
export const CatalogEventFrame = Schema.Struct({
  type: Schema.Literal("event"),
  cursor: Cursor,
  event: EventCatalog.Event
})
export type CatalogEventFrame = typeof CatalogEventFrame.Type
export const PingFrame = Schema.Struct({ type: Schema.Literal("ping") })
export const PongFrame = Schema.Struct({ type: Schema.Literal("pong") })
export const ErrorFrame = Schema.Struct({ type: Schema.Literal("error"), message: Schema.String })
export const AuthFrame = Schema.Struct({ type: Schema.Literal("auth"), api_key: Schema.String })
export const AckFrame = Schema.Struct({ type: Schema.Literal("ack"), cursor: Cursor })

export const ServerFrame = Schema.Union(ReadyFrame, EventFrame, PingFrame, PongFrame, ErrorFrame)
export type ServerFrame = typeof ServerFrame.Type

export const ClientFrame = Schema.Union(AuthFrame, AckFrame, PingFrame, PongFrame)
export type ClientFrame = typeof ClientFrame.Type

/** Close codes of the event socket. */
export const CloseCodes = {
  unauthorized: 4401,
  rateLimited: 4429,
  tooSlow: 4008
} as const
