import { Schema } from "effect"
import { Cursor } from "./Events.js"
import { HttpUrl, limited, Success, Timestamp } from "./Fields.js"

/**
 * The OpenClaw relay surface (CONTRACT "The OpenClaw relay surface"): an agent's event stream as the PowerLobster
 * relay served it, for the OpenClaw channel plugin, in the relay's envelope and event names.
 */

/** A relay: one per agent, named in the relay routes' paths. */
export const RelayId = Schema.String.pipe(
  Schema.pattern(/^rl_[0-9a-f]{24}$/, { message: () => "a relay id is rl_ and 24 hex digits" }),
  Schema.brand("RelayId")
).annotations({ identifier: "RelayId", examples: ["rl_3f2a9c0d4b5e6f708192a3b4" as never] })
export type RelayId = typeof RelayId.Type

/** Any path segment: an unknown relay is a 404 like another agent's, not a 400. */
export const RelayPath = Schema.Struct({ relay_id: Schema.String.pipe(Schema.maxLength(64)) })

export const DeliveryMode = Schema.Literal("poll", "push")
export type DeliveryMode = typeof DeliveryMode.Type

export class RelayCredentials extends Schema.Class<RelayCredentials>("RelayCredentials")({
  status: Success,
  relay_id: RelayId,
  relay_api_key: Schema.String.annotations({
    description: "rk_ + base64url: reads, acknowledges and configures this agent's relay feed, nothing else"
  }),
  webhook_url: Schema.NullOr(Schema.String).annotations({ description: "the relay's push target; null in poll mode" })
}) {}

/** The relay's `_meta`: how the event came, and where it sits in Shoal's stream. */
export const RelayMeta = Schema.Struct({
  delivery_method: DeliveryMode,
  cursor: Cursor,
  shoal_type: Schema.String.annotations({ description: "the event's type in Shoal's own stream" })
})

export const RelayPayload = Schema.Struct({
  type: Schema.String.annotations({ examples: ["dm.received"] }),
  data: Schema.Unknown.annotations({
    jsonSchema: { type: "object", description: "the relay's fields beside Shoal's own" }
  }),
  id: Schema.String,
  created_at: Timestamp,
  _meta: RelayMeta
}).annotations({ identifier: "RelayPayload" })
export type RelayPayload = typeof RelayPayload.Type

export const RelayEvent = Schema.Struct({
  id: Schema.String.annotations({ description: "the event's id: acknowledge it with this" }),
  payload: RelayPayload
}).annotations({ identifier: "RelayEvent" })
export type RelayEvent = typeof RelayEvent.Type

export const PendingQuery = Schema.Struct({
  ack: Schema.optional(
    Schema.Literal("true", "false").annotations({ description: "`true`: move the position past these events" })
  )
})

export class PendingEvents extends Schema.Class<PendingEvents>("RelayPendingEvents")({
  status: Success,
  events: Schema.Array(RelayEvent)
}) {}

export const AckRequest = Schema.Struct({ event_id: limited(64, 1) })

export const EventPath = Schema.Struct({ event_id: Schema.String.pipe(Schema.maxLength(64)) })

export const ResultRequest = Schema.Struct({
  status: Schema.Literal("success", "failed"),
  error_reason: Schema.optional(Schema.NullOr(limited(2_000))),
  executed_at: Schema.optional(Timestamp.pipe(Schema.filter((s) => !Number.isNaN(Date.parse(s)), {
    message: () => "must be an ISO 8601 timestamp"
  })))
})

export const ConfigureRequest = Schema.Struct({
  delivery_mode: DeliveryMode,
  webhook_url: Schema.optional(Schema.NullOr(HttpUrl)),
  webhook_secret: Schema.optional(Schema.NullOr(limited(256)))
})
export type ConfigureRequest = typeof ConfigureRequest.Type

export class RelayConfig extends Schema.Class<RelayConfig>("RelayConfig")({
  status: Success,
  relay_id: RelayId,
  config_version: Schema.Int,
  delivery_mode: DeliveryMode,
  webhook_url: Schema.NullOr(Schema.String)
}) {}

export class RelayStatus extends Schema.Class<RelayStatus>("RelayStatus")({ status: Success }) {}
