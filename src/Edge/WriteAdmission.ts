import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Config, Duration, Effect } from "effect"
import { errorResponse } from "../Http/ErrorEnvelope.js"
import { type AdmissionOptions, AdmissionQueue, type Outcome } from "./AdmissionQueue.js"
import { EdgeHardening } from "./Switch.js"

/**
 * Load shedding for writes (src/Edge/AdmissionQueue.ts has the policy), what a proxy's queue in front of a server
 * with `maxconn` does, but for writes only and paced by how fast they are applied. Offered more writes than the write path
 * absorbs, the server used to queue them all: requests waited behind each other for the embedded database's one
 * connection (or the pool) until every answer took seconds. Now writes beyond `WRITE_CONCURRENCY` in flight wait in
 * one queue; once that queue has stood longer than `WRITE_QUEUE_TARGET` for a whole `WRITE_QUEUE_INTERVAL`, new
 * writes are answered at once 503 `unavailable`, `Retry-After: 1`, details `{"reason":"overloaded"}`; so are those
 * the queue ahead and the writes in flight would hold longer than `WRITE_LATENCY_TARGET` at its recent pace. A queue
 * shorter than `WRITE_CONCURRENCY` is never shed: a burst, or a closed loop, of up to twice that many writers is
 * served whole. A shed request was never handled (its body not even read), so it is safe to retry as it is. A write
 * that waited longer than `WRITE_LATENCY_TARGET` when its turn comes is shed then, rather than applied late.
 *
 * One queue per process, shared by both servers: they write to the same database. The slots follow the pace
 * (src/Edge/AdmissionQueue.ts `minConcurrency`): up to `WRITE_CONCURRENCY` while writes are fast, so a group commit
 * still gathers tens of them, down to `WRITE_CONCURRENCY_MIN` (10) as the write path slows, so that what is
 * admitted drains within `WRITE_LATENCY_TARGET` (400 ms); a closed loop of up to twice the minimum (20 writers) is
 * never shed. Off by default (`WRITE_CONCURRENCY=0`; 64 is the setting the overload bench measures): on by default
 * it shed bursts of creates that clients had sent without retrying, and on the embedded database a pace measured
 * at few slots (small group commits) keeps the slots few: at 1,000 PATCHes/s offered, near what the embedded
 * database absorbs, the writes bench completes 598–682/s with admission on against 817–882/s off (2026-11-24, on
 * V8's default heap, as that bench then ran; 291/s when the default was turned off; bench/README.md "overload").
 *
 * Gated: every method but GET, HEAD and OPTIONS, except the heartbeat. A heartbeat writes nothing on the request
 * path (a touch in memory, flushed in one batched UPDATE every few seconds, src/Auth/Heartbeat.ts), so it takes
 * no share of the write path; shedding it would make agents look offline under load, and the presence changes
 * that follows are writes of their own. With `EDGE_HARDENING=false` there is no queue, whatever `WRITE_CONCURRENCY`.
 */
export class WriteAdmission extends Effect.Service<WriteAdmission>()("Edge/WriteAdmission", {
  effect: Effect.gen(function*() {
    const { on } = yield* EdgeHardening
    const concurrency = yield* Config.integer("WRITE_CONCURRENCY").pipe(Config.withDefault(0))
    const minimum = yield* Config.integer("WRITE_CONCURRENCY_MIN").pipe(Config.withDefault(10))
    const ms = (name: string, fallback: number) =>
      Config.duration(name).pipe(Config.withDefault(Duration.millis(fallback)), Config.map(Duration.toMillis))
    const options: AdmissionOptions = {
      concurrency,
      minConcurrency: Math.max(1, Math.min(minimum, concurrency)),
      target: yield* ms("WRITE_QUEUE_TARGET", 50),
      interval: yield* ms("WRITE_QUEUE_INTERVAL", 100),
      maxWait: yield* ms("WRITE_LATENCY_TARGET", 400),
      maxQueue: 4_096
    }
    return { queue: on && concurrency > 0 ? new AdmissionQueue(options) : undefined }
  }),
  dependencies: [EdgeHardening.Default]
}) {}

const exempt = new Set(["/api/agent/heartbeat"])

/** Whether a request takes a place in the write queue. */
export const isGatedWrite = (method: string, url: string) =>
  method !== "GET" && method !== "HEAD" && method !== "OPTIONS" && !exempt.has(url.split("?", 1)[0]!)

const overloaded = {
  code: "unavailable",
  message: "the server is taking more writes than it can absorb; retry after 1 s",
  details: { reason: "overloaded" },
  headers: { "retry-after": "1" }
} as const

export const overloadedResponse = () =>
  errorResponse(503, overloaded.code, overloaded.message, overloaded.details, overloaded.headers)

/** `app` with its writes admitted through `queue` (none: `app` as it is). */
export const withWriteAdmission = <E, R>(
  queue: AdmissionQueue | undefined,
  app: HttpApp.Default<E, R>
): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> => {
  if (queue === undefined) return app
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (!isGatedWrite(request.method, request.url)) return app
    return Effect.suspend(() => {
      // set as the slot is granted, synchronously, so that an interruption at any point after releases it
      let holds = false
      const admit = Effect.async<Outcome>((resume) => {
        const arrival = queue.arrive(Date.now(), (outcome) => {
          holds = outcome === "run"
          resume(Effect.succeed(outcome))
        })
        if (arrival._tag === "Queued") return Effect.sync(arrival.cancel)
        holds = arrival._tag === "Run"
        resume(Effect.succeed(holds ? "run" : "shed"))
      })
      return admit.pipe(
        Effect.flatMap((outcome) => outcome === "run" ? app : Effect.succeed(overloadedResponse())),
        Effect.ensuring(Effect.sync(() => {
          if (holds) {
            holds = false
            queue.release(Date.now())
          }
        }))
      )
    })
  })
}
