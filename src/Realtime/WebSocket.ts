import { NodeHttpServerRequest } from "@effect/platform-node"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Auth } from "@shoal/domain"
import { Effect, Layer } from "effect"
import { errorResponse } from "../Http/ErrorEnvelope.js"
import type { Lane } from "../Http/FastLane.js"
import { AgentHub } from "./AgentHub.js"
import { cursorAheadError } from "./Events.js"
import { EventSocket } from "./EventSocket.js"
import { EventsRepo } from "./EventsRepo.js"
import { SocketAuth } from "./SocketAuth.js"

const PATH = "/api/agent/ws"
const isCursor = (s: string) => /^\d{1,15}$/.test(s)

/**
 * GET /api/agent/ws: the request's checks (a WebSocket upgrade, a valid `?after=`, a key in a header valid if
 * present: else the contract's JSON error and no upgrade), then the session (src/Realtime/EventSocket.ts).
 */
const handler = Effect.gen(function*() {
  const hub = yield* AgentHub
  const repo = yield* EventsRepo
  const auth = yield* SocketAuth
  const sockets = yield* EventSocket
  return (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const afterText = new URL(request.url, "http://localhost").searchParams.get("after")
      if (afterText !== null && !isCursor(afterText)) {
        const message = "a cursor is a non-negative integer"
        return errorResponse(400, "invalid_request", `after: ${message}`, [{ path: ["after"], message }])
      }
      // a real upgrade (Connection: Upgrade) reaches us through the server's upgrade path; anything else is plain HTTP
      const upgrade = (NodeHttpServerRequest.toIncomingMessage(request) as { upgrade?: boolean }).upgrade === true
      if (!upgrade || (request.headers["upgrade"] ?? "").toLowerCase() !== "websocket") {
        return errorResponse(400, "invalid_request", "this endpoint speaks WebSocket: send Upgrade: websocket")
      }
      let header: Auth.Principal | undefined
      if (request.headers["authorization"] !== undefined || request.headers["x-api-key"] !== undefined) {
        const result = yield* auth.fromHeaders(request.headers)
        if (result._tag === "Unauthorized") {
          return errorResponse(401, "unauthorized", result.message, undefined, { "www-authenticate": "Bearer" })
        }
        if (result._tag === "RateLimited") {
          return errorResponse(429, "rate_limited", `rate limit exceeded; retry after ${result.retryAfter} s`, {
            retry_after: result.retryAfter
          }, { "retry-after": String(result.retryAfter) })
        }
        header = result.principal
      }
      const after = afterText === null ? undefined : Number(afterText)
      // behind what this node has handed out is surely valid; past it, the database knows other nodes' cursors
      if (after !== undefined && after > hub.position()) {
        const newest = yield* Effect.orDie(repo.newest)
        if (after > newest) {
          const e = cursorAheadError(after, newest)
          return errorResponse(400, "invalid_request", e.message, e.details)
        }
      }
      yield* sockets.accept(request, header, after)
      return HttpServerResponse.empty()
    })
})

export const WebSocketLive = HttpApiBuilder.Router.use((router) =>
  Effect.flatMap(handler, (handle) => router.get(PATH, Effect.flatMap(HttpServerRequest.HttpServerRequest, handle)))
).pipe(Layer.provide(EventsRepo.Default))

/**
 * The same handler ahead of the router and the middleware (src/Http/FastLane.ts): a connect storm of 10,000 sockets
 * is 10,000 requests through them (bench/README.md, fanout). Only the exact path comes this way (a `?after=` resume takes the router), and only
 * a request without a body, so the middleware would have nothing to check; the handler answers every case itself
 * (its failures, a database error on the cursor check, fall to the general path as every lane's do).
 */
export const EventSocketLane = Effect.map(
  handler.pipe(Effect.provide(EventsRepo.Default)),
  (handle): Lane => ({
    method: "GET",
    path: PATH,
    answer: (request) =>
      request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined
        ? handle(request)
        : Effect.succeed(undefined)
  })
)
