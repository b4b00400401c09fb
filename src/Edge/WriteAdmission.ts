import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Config, Effect } from "effect"
import { unavailableResponse } from "../Http/ErrorEnvelope.js"
import { type AdmissionOptions, AdmissionQueue, type Outcome } from "./AdmissionQueue.js"
import { edgeHardening, millis } from "./Switch.js"

/**
 * Load shedding for writes, as a proxy's queue in front of a server with `maxconn` would, but paced by how fast
 * writes are applied (the policy, CoDel's standing queue and a latency target: src/Edge/AdmissionQueue.ts). A shed
 * write is answered at once 503 `unavailable`, details `{"reason":"overloaded"}`: it was never handled (its body not
 * even read), so it is safe to retry as it is.
 *
 * One queue per process, shared by both servers (they write to the same database). Its slots follow the pace: up to
 * `WRITE_CONCURRENCY` while writes are fast (a group commit still gathers tens), down to `WRITE_CONCURRENCY_MIN` as
 * they slow. Off by default (`WRITE_CONCURRENCY=0`): on, it shed bursts of creates that clients did not retry, and
 * cut the writes bench's throughput on the embedded database (bench/README.md "overload").
 *
 * The heartbeat is not gated (`isGatedWrite`): it writes nothing on the request path (a touch flushed in batches,
 * src/Auth/Heartbeat.ts), shedding it would make agents look offline under load, and the presence changes that
 * follow are writes of their own. With `EDGE_HARDENING=false` there is no queue.
 */
export class WriteAdmission extends Effect.Service<WriteAdmission>()("Edge/WriteAdmission", {
  effect: Effect.gen(function*() {
    const on = yield* edgeHardening
    const concurrency = yield* Config.integer("WRITE_CONCURRENCY").pipe(Config.withDefault(0))
    const minimum = yield* Config.integer("WRITE_CONCURRENCY_MIN").pipe(Config.withDefault(10))
    const options: AdmissionOptions = {
      concurrency,
      minConcurrency: Math.max(1, Math.min(minimum, concurrency)),
      target: yield* millis("WRITE_QUEUE_TARGET", 50),
      interval: yield* millis("WRITE_QUEUE_INTERVAL", 100),
      maxWait: yield* millis("WRITE_LATENCY_TARGET", 400),
      maxQueue: 4_096
    }
    return { queue: on && concurrency > 0 ? new AdmissionQueue(options) : undefined }
  })
}) {}

// the heartbeat, the most frequent call, would otherwise also empty the read caches many times a second
const exempt = new Set(["/api/agent/heartbeat"])

/**
 * Whether a request may write: it takes a place in the write queue, and once it is handled (committed, succeeded or
 * failed) it drops every page of this node's read cache before its answer goes out (src/Http/ApiMiddleware.ts).
 */
export const isGatedWrite = (method: string, url: string) =>
  method !== "GET" && method !== "HEAD" && method !== "OPTIONS" && !exempt.has(url.split("?", 1)[0]!)

const overloaded = () =>
  unavailableResponse("the server is taking more writes than it can absorb", { reason: "overloaded" }, 1)

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
        Effect.flatMap((outcome) => outcome === "run" ? app : Effect.succeed(overloaded())),
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
