import { NodeHttpServerRequest } from "@effect/platform-node"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Auth } from "@shoal/domain"
import { Effect, Either, Layer } from "effect"
import { KeyCheck, missingKeyMessage, presentedKey, unknownKeyMessage } from "../Auth.js"
import { sessionToken } from "../Auth/Sessions.js"
import { errorResponse } from "../Http/ErrorEnvelope.js"
import { AgentHub } from "./AgentHub.js"
import { refuseAhead } from "./Events.js"
import { EventSocket } from "./EventSocket.js"
import { EventsRepo } from "./EventsRepo.js"
import { pendingRefusalMessage, pendingRetryAfter } from "./PendingAuth.js"

const PATH = "/api/agent/ws"
const isCursor = (s: string) => /^\d{1,15}$/.test(s)
const rateLimited = (message: string, retryAfter: number) =>
  errorResponse(429, "rate_limited", message, { retry_after: retryAfter }, { "retry-after": String(retryAfter) })

/**
 * GET /api/agent/ws: the request's checks (a WebSocket upgrade, a valid `?after=`, a key in a header valid if
 * present: else the contract's JSON error and no upgrade), then the session (src/Realtime/EventSocket.ts).
 */
const handler = Effect.gen(function*() {
  const hub = yield* AgentHub
  const repo = yield* EventsRepo
  const keys = yield* KeyCheck
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
        const result = yield* keys.checkUpgrade(request.headers)
        if (result._tag === "Missing" || result._tag === "Unknown") {
          const message = result._tag === "Missing"
            ? missingKeyMessage
            : presentedKey(request.headers) === undefined
            ? "the console session is unknown, ended or from another site"
            : unknownKeyMessage
          return errorResponse(401, "unauthorized", message, undefined, { "www-authenticate": "Bearer" })
        }
        if (result._tag === "Limited") {
          const { retryAfter } = result.decision
          return rateLimited(`rate limit exceeded; retry after ${retryAfter} s`, retryAfter)
        }
        header = result.principal
      } else if (sockets.refusesKeyless(NodeHttpServerRequest.toIncomingMessage(request).socket.remoteAddress)) {
        return rateLimited(pendingRefusalMessage, pendingRetryAfter)
      }
      const after = afterText === null ? undefined : Number(afterText)
      // behind what this node has handed out is surely valid; past it, the database knows other nodes' cursors
      if (after !== undefined && after > hub.position()) {
        const ahead = yield* Effect.either(refuseAhead(repo, after))
        if (Either.isLeft(ahead)) return errorResponse(400, "invalid_request", ahead.left.message, ahead.left.details)
      }
      yield* sockets.accept(request, header, after)
      return HttpServerResponse.empty()
    })
})

export const WebSocketLive = HttpApiBuilder.Router.use((router) =>
  Effect.flatMap(handler, (handle) => router.get(PATH, Effect.flatMap(HttpServerRequest.HttpServerRequest, handle)))
).pipe(Layer.provide(EventsRepo.Default))
