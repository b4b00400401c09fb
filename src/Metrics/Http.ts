import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Config, Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { AgentHub } from "../Realtime/AgentHub.js"
import { connectedAgents, connectedSockets, labels, none, sampleAll, sampler, webhookQueue } from "./Metrics.js"
import { ProcessMetricsLive } from "./Process.js"
import { contentType, scrape } from "./Prometheus.js"
import { WebhookQueueRepo } from "./WebhookQueueRepo.js"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** The gauges read from this node's hub and from the webhook table, at each scrape. */
const StateSamplersLive = Layer.scopedDiscard(Effect.gen(function*() {
  const hub = yield* AgentHub
  const queue = yield* WebhookQueueRepo
  yield* sampler(Effect.sync(() => {
    const { sockets, agents } = hub.connected()
    connectedSockets.unsafeUpdate(sockets, none)
    connectedAgents.unsafeUpdate(agents, none)
  }))
  // a slow database must not hold the scrape: the gauge keeps its last value
  yield* sampler(Clock.currentTimeMillis.pipe(
    Effect.flatMap(queue.depth),
    Effect.timeout("2 seconds"),
    Effect.map((depth) => {
      webhookQueue.unsafeUpdate(depth.pending, labels("state", "pending"))
      webhookQueue.unsafeUpdate(depth.due, labels("state", "due"))
    }),
    Effect.ignore
  ))
})).pipe(Layer.provide(WebhookQueueRepo.Default))

/**
 * `GET /metrics`: every series of src/Metrics/Metrics.ts and the process's, in the Prometheus text format, for an
 * operator's scraper rather than an agent (no API key). With `METRICS_TOKEN` set, the scraper must send it as
 * `Authorization: Bearer <token>`; anything else is a 401.
 */
export const MetricsHttpLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const token = Option.map(yield* Config.option(Config.redacted("METRICS_TOKEN")), (t) => digest(Redacted.value(t)))
    // compared as digests: equal lengths, in constant time
    const allowed = (authorization: string | undefined) =>
      Option.isNone(token) || (authorization !== undefined && authorization.startsWith("Bearer ") &&
        timingSafeEqual(digest(authorization.slice(7)), token.value))
    yield* router.get(
      "/metrics",
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        allowed(request.headers.authorization)
          ? Effect.zipRight(sampleAll, Effect.sync(() => HttpServerResponse.text(scrape(), { contentType })))
          : Effect.succeed(HttpServerResponse.text("metrics need the METRICS_TOKEN bearer\n", {
            status: 401,
            headers: { "www-authenticate": "Bearer" }
          })))
    )
  })
).pipe(Layer.provide(Layer.mergeAll(ProcessMetricsLive, StateSamplersLive)))
