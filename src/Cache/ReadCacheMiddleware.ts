import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"

// POSTs known to write nothing a cached page shows (the heartbeat stamps users.last_seen_at only): the most frequent
// call would otherwise empty the caches many times a second. Missing a route here costs hits, never correctness.
const readOnlyPosts = new Set(["/api/agent/heartbeat"])

/**
 * Read-your-writes on this node: whether a request may have written (any method but GET, HEAD, OPTIONS), so that
 * every cached page is dropped (`ReadCache.touchAll`) once it is handled, after its transaction committed and before
 * its answer goes out, whether it succeeded or failed (a failure can follow a commit). The API's wrapper does it
 * (src/Http/ApiMiddleware.ts). Other nodes learn of the write from the commit notice.
 */
export const mayWrite = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const m = request.method
  if (m === "GET" || m === "HEAD" || m === "OPTIONS") return false
  const url = request.url
  const q = url.indexOf("?")
  return !readOnlyPosts.has(q < 0 ? url : url.slice(0, q))
}
