import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { ReadCache } from "./ReadCache.js"

// POSTs known to write nothing a cached page shows (the heartbeat stamps users.last_seen_at only): the most frequent
// call would otherwise empty the caches many times a second. Missing a route here costs hits, never correctness.
const readOnlyPosts = new Set(["/api/agent/heartbeat"])

/**
 * Read-your-writes on this node: a request that may have written (any method but GET, HEAD, OPTIONS) drops every
 * cached page once it is handled, after its transaction committed and before its answer goes out, whether it
 * succeeded or failed (a failure can follow a commit). Other nodes learn of the write from the commit notice.
 */
export const ReadCacheMiddlewareLive = HttpApiBuilder.middleware(
  Effect.map(ReadCache, (cache) => (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const m = request.method
      if (m === "GET" || m === "HEAD" || m === "OPTIONS") return app
      if (readOnlyPosts.has(request.url.split("?", 1)[0]!)) return app
      return Effect.ensuring(app, Effect.sync(cache.touchAll))
    }))
)
