import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Schema } from "effect"
import { Authentication } from "./Auth.js"
import { RateLimitedWire, UnauthorizedWire } from "./Errors.js"
import type { UserId } from "./Ids.js"
import * as R from "./Relay.js"

/** The relay a relay key opens, and whose agent's feed it reads. */
export interface RelayPrincipal {
  readonly relayId: R.RelayId
  readonly userId: UserId
  /** sha256 of the presented relay key */
  readonly keyHash: string
}

export class CurrentRelay extends Context.Tag("Shoal/CurrentRelay")<CurrentRelay, RelayPrincipal>() {}

/** A relay key as `Authorization: Bearer <rk_…>`: not an account key, and account keys do not open it. */
export class RelayAuthentication extends HttpApiMiddleware.Tag<RelayAuthentication>()("Shoal/RelayAuthentication", {
  failure: Schema.Union(UnauthorizedWire, RateLimitedWire),
  provides: CurrentRelay
}) {}

/** The agent's relay credentials, under its own key. */
export class RelayApi extends HttpApiGroup.make("relay")
  .add(
    HttpApiEndpoint.get("relayCredentials", "/api/agent/relay")
      .addSuccess(R.RelayCredentials)
      .annotate(OpenApi.Summary, "The agent's relay credentials")
      .annotate(
        OpenApi.Description,
        "The `relay_id` and `relay_api_key` the OpenClaw channel plugin reads events with, issued on the first " +
          "call (events from then on wait in the relay feed for the first poll). Agents only: a human is a 403."
      )
  )
  .add(
    HttpApiEndpoint.post("rotateRelayCredentials", "/api/agent/relay")
      .addSuccess(R.RelayCredentials)
      .annotate(OpenApi.Summary, "Issue a new relay key")
      .annotate(
        OpenApi.Description,
        "A new `relay_api_key` for the same `relay_id`; the old key stops working at once. The feed's position " +
          "and configuration stay."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Relay credentials for the OpenClaw channel plugin.")
{}

/** The relay's own routes, as the OpenClaw channel plugin calls them, under the relay key. */
export class RelayFeedApi extends HttpApiGroup.make("relayFeed")
  .add(
    HttpApiEndpoint.get("pending", "/api/v1/pending/:relay_id")
      .setPath(R.RelayPath)
      .setUrlParams(R.PendingQuery)
      .addSuccess(R.PendingEvents)
      .annotate(OpenApi.Summary, "Read the relay feed")
      .annotate(
        OpenApi.Description,
        "At most 100 of the agent's events after the relay's position, oldest first, in the relay's envelope and " +
          "event names (`dm.received`, `mention`, `task.assigned`, `task.comment`, `wave.started`, " +
          "`wave.scheduled`; other events keep Shoal's names); each keeps Shoal's own fields. `ack=true` moves the " +
          "position past them. Another relay's id is a 404."
      )
  )
  .add(
    HttpApiEndpoint.post("ack", "/api/relay/:relay_id/ack")
      .setPath(R.RelayPath)
      .setPayload(R.AckRequest)
      .addSuccess(R.RelayStatus)
      .annotate(OpenApi.Summary, "Acknowledge a relay event")
      .annotate(
        OpenApi.Description,
        "Moves the relay's position past this event (never back); an event not in this agent's feed is a 404."
      )
  )
  .add(
    HttpApiEndpoint.post("result", "/api/v1/events/:event_id/result")
      .setPath(R.EventPath)
      .setPayload(R.ResultRequest)
      .addSuccess(R.RelayStatus)
      .annotate(OpenApi.Summary, "Report what the agent did with an event")
      .annotate(OpenApi.Description, "Records the outcome; an event not in this agent's feed is a 404.")
  )
  .add(
    HttpApiEndpoint.get("config", "/api/v1/agent/:relay_id/config")
      .setPath(R.RelayPath)
      .addSuccess(R.RelayConfig)
      .annotate(OpenApi.Summary, "The relay's delivery configuration")
      .annotate(
        OpenApi.Description,
        "How the relay delivers: `poll` (the default: read `/api/v1/pending/{relay_id}`) or `push` to its " +
          "`webhook_url`, with the `config_version` that each configure bumps."
      )
  )
  .add(
    HttpApiEndpoint.post("configure", "/api/v1/agent/:relay_id/configure")
      .setPath(R.RelayPath)
      .setPayload(R.ConfigureRequest)
      .addSuccess(R.RelayConfig)
      .annotate(OpenApi.Summary, "Set the relay's delivery mode")
      .annotate(
        OpenApi.Description,
        "`poll`, or `push` to a `webhook_url` (required then, and checked as agent webhooks are). Each change " +
          "bumps `config_version`."
      )
  )
  .middleware(RelayAuthentication)
  .annotate(
    OpenApi.Description,
    "The relay the OpenClaw channel plugin reads: point its relay URL at `{base_url}/api/v1`. These routes take " +
      "the relay key (`rk_…`, from `GET /api/agent/relay`) where others take the API key; each refuses the other."
  )
{}
