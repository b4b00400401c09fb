import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Chunk, Effect, FiberRef, MetricLabel } from "effect"
import * as FindMyWay from "find-my-way-ts"
import { httpDuration, httpRequests } from "./Metrics.js"

type Route = HttpRouter.Route<unknown, unknown>
/** A route's label sets, by method and then status class (index 1–5; 0 for a failure without a response). */
type Slots = Map<string, Array<ReadonlyArray<MetricLabel.MetricLabel> | undefined>>

const classes = ["5xx", "1xx", "2xx", "3xx", "4xx", "5xx"] as const
const unmatched = { path: "unmatched" }

/**
 * The route template of a request, found again after the router answered: the router keeps the route it matched
 * in a context of its own, out of a middleware's reach. Paths without parameters (the hot ones) are one map
 * lookup; the others go through a find-my-way tree built from the same routes, with the router's settings.
 */
const matcher = (routes: ReadonlyArray<Route>, config: Partial<FindMyWay.RouterConfig>) => {
  const tree = FindMyWay.make<Route>(config)
  const statics = new Map<string, Map<string, Route>>()
  for (const route of routes) {
    if (route.method === "*") tree.all(route.path, route)
    else tree.on(route.method, route.path, route)
    if (/[:*]/.test(route.path)) continue
    for (const method of route.method === "*" ? anyMethod : [route.method]) {
      let paths = statics.get(method)
      if (paths === undefined) statics.set(method, paths = new Map())
      if (!paths.has(route.path)) paths.set(route.path, route)
    }
  }
  const lookup = (method: string, path: string) => statics.get(method)?.get(path) ?? tree.find(method, path)?.handler
  return (method: string, url: string): { readonly path: string } => {
    const q = url.indexOf("?")
    const path = q < 0 ? url : url.slice(0, q)
    // HEAD is answered by the GET route, as the router does
    return lookup(method, path) ?? (method === "HEAD" ? lookup("GET", path) : undefined) ?? unmatched
  }
}
const anyMethod = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

/**
 * Counts and times every request the router answers into `shoal_http_requests_total` and
 * `shoal_http_request_duration_seconds`, by route template, method and status class (label arrays made once each).
 * The API's wrapper (src/Http/ApiMiddleware.ts) calls what this gives once every route is registered.
 */
export const httpMetrics = Effect.gen(function*() {
  const service = yield* HttpApiBuilder.Router
  const config = yield* FiberRef.get(HttpRouter.currentRouterConfig)
  const slots = new Map<object, Slots>()
  const labelsFor = (route: { readonly path: string }, method: string, status: number) => {
    let byMethod = slots.get(route)
    if (byMethod === undefined) slots.set(route, byMethod = new Map())
    let byClass = byMethod.get(method)
    if (byClass === undefined) byMethod.set(method, byClass = [])
    const cls = status >= 100 && status < 600 ? Math.floor(status / 100) : 0
    return byClass[cls] ??= [
      MetricLabel.make("route", route.path),
      MetricLabel.make("method", method),
      MetricLabel.make("status", classes[cls]!)
    ]
  }
  return () => {
    const find = matcher(Chunk.toReadonlyArray(Effect.runSync(service.router).routes) as ReadonlyArray<Route>, config)
    /** Counts one answered request: when it started (`performance.now()`), its status (0: none). */
    return (request: HttpServerRequest.HttpServerRequest, start: number, status: number) => {
      const tags = labelsFor(find(request.method, request.url), request.method, status)
      httpRequests.unsafeUpdate(1, tags)
      httpDuration.unsafeUpdate((performance.now() - start) / 1000, tags)
    }
  }
})
