import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Context, Effect, Layer } from "effect"
import { withRateLimitHeaders } from "../Auth/RateLimiter.js"
import { ReadCache } from "../Cache/ReadCache.js"
import { isGatedWrite } from "../Edge/WriteAdmission.js"
import { httpMetrics } from "../Metrics/HttpMetrics.js"
import { guarded, toResponse } from "./ErrorHandling.js"

/**
 * The API-level middleware, one wrapper around every request of an API (groups, sockets, MCP, console):
 * - the body's limits and checks, then the error envelope: every failure or defect becomes the contract's JSON
 *   error (src/Http/ErrorHandling.ts);
 * - read-your-writes: a request that may have written drops every cached page before its answer goes out
 *   (`isGatedWrite`, src/Edge/WriteAdmission.ts);
 * - the rate-limit headers of the request's decision (src/Auth/RateLimiter.ts);
 * - its count and duration, by route, method and the status the client gets (src/Metrics/HttpMetrics.ts).
 * One wrapper, not a middleware each: fiber steps are most of what a request answered from memory costs, and here
 * it takes two (bench/README.md, "The one path, profiled"). The platform runs this part uninterruptible
 * (`HttpApp.toHandled`), so an interruption comes here as a failure: counted as 5xx, answered by nobody.
 */
export const ApiMiddlewareLive = HttpApiBuilder.middleware(
  Effect.gen(function*() {
    const cache = yield* ReadCache
    const metrics = yield* httpMetrics
    // applied once, when the app is assembled: every route is registered by then
    return (app: HttpApp.Default): HttpApp.Default => {
      const count = metrics()
      return Effect.withFiberRuntime((fiber) => {
        const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
        const start = performance.now()
        const writes = isGatedWrite(request.method, request.url)
        // methods, not arrows: tsx's keepNames (the tests' and benches' servers) would name each anew per request
        const outcome = {
          onSuccess(response: HttpServerResponse.HttpServerResponse) {
            if (writes) cache.touchAll()
            const answered = withRateLimitHeaders(request, response)
            count(request, start, answered.status)
            return Effect.succeed(answered)
          },
          onFailure(cause: Cause.Cause<never>) {
            if (!Cause.isInterruptedOnly(cause)) return Effect.flatMap(toResponse(cause), outcome.onSuccess)
            if (writes) cache.touchAll()
            count(request, start, 0)
            return Effect.failCause(cause)
          }
        }
        return Effect.matchCauseEffect(guarded(app, request), outcome)
      })
    }
  })
  // the router the app's routes were registered on: one per app (memoized within its fresh layer)
).pipe(Layer.provide(HttpApiBuilder.Router.Live))
