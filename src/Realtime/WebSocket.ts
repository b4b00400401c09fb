import { NodeHttpServerRequest } from "@effect/platform-node"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Auth } from "@shoal/domain"
import { Effect, Layer } from "effect"
import type { Socket } from "node:net"
import { sessionToken } from "../Auth/Sessions.js"
import { errorResponse } from "../Http/ErrorEnvelope.js"
import type { Lane } from "../Http/FastLane.js"
import type { NodeUpgradeLane } from "../Http/FrontDoor.js"
import { AgentHub } from "./AgentHub.js"
import { cursorAheadError } from "./Events.js"
import { EventSocket } from "./EventSocket.js"
import { EventsRepo } from "./EventsRepo.js"
import { pendingRefusalMessage, pendingRetryAfter } from "./PendingAuth.js"
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
      if (
        request.headers["authorization"] !== undefined || request.headers["x-api-key"] !== undefined ||
        // or a console session's cookie (src/Auth/Sessions.ts)
        sessionToken(request.headers) !== undefined
      ) {
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
      } else if (sockets.refusesKeyless(NodeHttpServerRequest.toIncomingMessage(request).socket.remoteAddress)) {
        return errorResponse(429, "rate_limited", pendingRefusalMessage, { retry_after: pendingRetryAfter }, {
          "retry-after": String(pendingRetryAfter)
        })
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

/**
 * The plain case at the front door (src/Http/FrontDoor.ts), before Effect's HTTP server makes the upgrade a fiber: a
 * connect storm of 10,000 sockets was 10,000 request fibers, each waiting on its key's batched lookup (bench/README.md,
 * fanout). An upgrade of the exact path with a key in a header and no body waits for the same batched lookup on a
 * callback; a known key within its limit is upgraded and started on Node's socket (src/Realtime/EventSocket.ts,
 * `upgradeNow`). One with no key at all is upgraded at once to wait for its auth frame (`upgradeUnauthenticatedNow`):
 * sockets that never authenticate cost no request fiber each (bench/README.md, hostile). Anything else (an unknown
 * key, a limit reached, a failed lookup) goes on, unchanged and uncounted, to the app's upgrade path, which checks it
 * again and answers it as always.
 */
export const EventSocketFrontLane = Effect.gen(function*() {
  const auth = yield* SocketAuth
  const sockets = yield* EventSocket
  const clock = yield* Effect.clock
  const now = () => clock.unsafeCurrentTimeMillis()
  // the socket has no error listener between Node's upgrade event and ws's: a reset meanwhile is not a crash
  const ignore = () => {}
  const lane: NodeUpgradeLane = {
    method: "GET",
    path: PATH,
    upgrade: true,
    answer: (request, socket, head, next) => {
      const h = request.headers
      if (h["content-length"] !== undefined || h["transfer-encoding"] !== undefined) return false
      if ((h.upgrade ?? "").toLowerCase() !== "websocket") return false
      // a console session's cookie is looked up by the general path (src/Auth/Sessions.ts)
      if (sessionToken(h) !== undefined) return false
      if (h.authorization === undefined && h["x-api-key"] === undefined) {
        // no key: the auth frame will say who it is (or the deadline closes it), exactly as the general path does
        sockets.upgradeUnauthenticatedNow(request, socket as Socket, head)
        return true
      }
      socket.on("error", ignore)
      auth.checkNow(h as Readonly<Record<string, string | undefined>>, now, (principal) => {
        socket.off("error", ignore)
        if (principal === undefined) return next()
        if (socket.destroyed || !socket.writable) return void socket.destroy()
        try {
          sockets.upgradeNow(request, socket as Socket, head, principal)
        } catch {
          // called back from the lookup's batch: a failure here is this socket's alone
          socket.destroy()
        }
      })
      return true
    }
  }
  return lane
})
