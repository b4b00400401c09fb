import { NodeHttpServerRequest } from "@effect/platform-node"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Auth } from "@shoal/domain"
import { Events } from "@shoal/domain"
import { Config, Duration, Effect, FiberSet, Layer } from "effect"
import type { IncomingMessage } from "node:http"
import type { Socket as TcpSocket } from "node:net"
import { type WebSocket, WebSocketServer } from "ws"
import { Heartbeat } from "../Auth/Heartbeat.js"
import { errorResponse } from "../Http/ErrorEnvelope.js"
import { closeListenersToKeep } from "../Http/HoldingServer.js"
import { AgentHub } from "./AgentHub.js"
import { Connection } from "./Connection.js"
import { cursorAheadError } from "./Events.js"
import { EventsRepo } from "./EventsRepo.js"
import { SocketAuth } from "./SocketAuth.js"

const PAGE = 500
const { rateLimited, unauthorized } = Events.CloseCodes

type Frame = { readonly type?: unknown; readonly [k: string]: unknown }

const parseFrame = (data: Buffer): Frame | undefined => {
  try {
    const value: unknown = JSON.parse(data.toString("utf8"))
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Frame : undefined
  } catch {
    return undefined
  }
}

const errorFrame = (message: string) => JSON.stringify({ type: "error", message })
const isCursor = (s: string) => /^\d{1,15}$/.test(s)

/**
 * Takes the upgraded TCP socket away from the HTTP layer: its response is marked finished (so nothing is written
 * after the 101), and `ws` owns the socket from here on. An open socket then costs plain objects and callbacks,
 * not a suspended request fiber with its whole middleware stack (≈ 70 KB each when we kept one).
 */
const takeOver = (request: HttpServerRequest.HttpServerRequest) => {
  const req = NodeHttpServerRequest.toIncomingMessage(request)
  const res = NodeHttpServerRequest.toServerResponse(request)
  res.detachSocket(req.socket)
  ;(res as { finished: boolean }).finished = true
  // the server's own "close" listener would keep the finished request fiber (and its context) alive as long as
  // the socket; Node's HTTP parser removed its listeners at the upgrade, so what is left here is only that one
  const kept = closeListenersToKeep(req.socket)
  req.socket.removeAllListeners("close")
  for (const listener of kept) req.socket.once("close", listener)
  return req
}

/**
 * GET /api/agent/ws. Key in a header (a bad one is an HTTP 401 before upgrading) or in a first frame
 * `{"type":"auth","api_key":…}` within 10 s (else close 4401). Then `ready` with the current cursor, the replay
 * of `?after=` if asked, and live events; ping/pong and ack frames; WebSocket pings from the hub's keep-alive.
 */
export const WebSocketLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const hub = yield* AgentHub
    const repo = yield* EventsRepo
    const auth = yield* SocketAuth
    const heartbeat = yield* Heartbeat
    const maxBuffered = yield* Config.integer("WS_MAX_BUFFERED_BYTES").pipe(Config.withDefault(1024 * 1024))
    const authTimeout = yield* Config.duration("WS_AUTH_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))
    // what a socket's callbacks start runs in a set owned by this route's scope: interrupted at shutdown, never leaked
    const runFork = yield* FiberSet.makeRuntime<never>()
    // after closing a socket that never authenticated, how long its peer has to answer the close frame before the
    // socket is destroyed (ws waits 30 s: a client ignoring the 4401 of its deadline would hold its socket three
    // times as long). Authenticated sockets keep ws's 30 s, so a slow reader still gets its 4008 and cursor.
    const closeTimeout = Duration.toMillis(
      yield* Config.duration("WS_CLOSE_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5)))
    )
    // a frame past maxPayload closes the socket with 1009 before it is buffered whole
    const maxPayload = yield* Config.integer("WS_MAX_PAYLOAD_BYTES").pipe(Config.withDefault(64 * 1024))
    const authNotice = `authenticate within ${Duration.format(authTimeout)}: {"type":"auth","api_key":…}`
    const wss = new WebSocketServer({ noServer: true, maxPayload, clientTracking: false })
    yield* Effect.addFinalizer(() => Effect.sync(() => wss.close()))

    const drained = (conn: Connection): Effect.Effect<void> =>
      conn.buffered < maxBuffered / 2 || conn.closed
        ? Effect.void
        : Effect.zipRight(
          Effect.async<void>((resume) => {
            const done = () => resume(Effect.void)
            conn.tcp.once("drain", done).once("close", done)
            return Effect.sync(() => conn.tcp.off("drain", done).off("close", done))
          }),
          Effect.suspend(() => drained(conn))
        )

    /** backfill → cut-over → live: pages from the database, then what the dispatcher handed over meanwhile */
    const replay = (conn: Connection) =>
      Effect.gen(function*() {
        while (!conn.closed) {
          const rows = yield* Effect.orDie(repo.forRecipient(conn.userId, conn.lastSent, PAGE))
          for (const row of rows) conn.replay(row)
          if (rows.length === PAGE) yield* drained(conn)
          else if (conn.goLive()) return
        }
      })

    const session = (ws: WebSocket, tcp: TcpSocket, header: Auth.Principal | undefined, after: number | undefined) => {
      let conn: Connection | undefined
      let authenticating = false
      let closed = false
      let hangUp: ReturnType<typeof setTimeout> | undefined
      /** Closes a socket that has not authenticated; it is destroyed if its peer does not answer in time. */
      const refuse = (code: number, reason: string) => {
        ws.close(code, reason)
        hangUp ??= setTimeout(() => ws.terminate(), closeTimeout)
      }

      const start = (principal: Auth.Principal) =>
        Effect.gen(function*() {
          if (closed) return
          const c = new Connection(ws, tcp, principal.id, principal.keyHash, maxBuffered, 0)
          conn = c
          const position = yield* hub.attach(c, principal.userType)
          // closed while attaching: the close handler may have run before the hub knew it
          if (closed) return yield* hub.detach(c)
          c.lastSent = after ?? position
          if (principal.userType === "agent") yield* hub.touch(c.userId)
          yield* heartbeat.touch(c.userId)
          c.sendText(JSON.stringify({ type: "ready", cursor: position }))
          if (after !== undefined) yield* replay(c)
          else c.goLive()
        }).pipe(
          // a socket that cannot go live is closed, so its client resumes elsewhere instead of waiting forever
          Effect.catchAllCause((cause) =>
            Effect.zipRight(Effect.logWarning("event socket failed to start", cause), Effect.sync(() => ws.close(1011)))
          )
        )

      const authTimer = header !== undefined ? undefined : runFork(
        Effect.sleep(authTimeout).pipe(Effect.zipRight(Effect.sync(() => {
          if (conn === undefined) refuse(unauthorized, authNotice)
        })))
      )

      ws.on("message", (data: Buffer) => {
        const frame = parseFrame(data)
        const c = conn
        if (c === undefined) {
          // frames that follow the auth frame before it is checked are ignored
          if (header !== undefined || authenticating) return
          authenticating = true
          if (frame?.type !== "auth" || typeof frame.api_key !== "string") {
            return refuse(unauthorized, "authenticate first: {\"type\":\"auth\",\"api_key\":…}")
          }
          runFork(Effect.flatMap(auth.check(frame.api_key), (result) => {
            if (result._tag === "Ok") return start(result.principal)
            refuse(
              result._tag === "RateLimited" ? rateLimited : unauthorized,
              result._tag === "RateLimited"
                ? `rate limited; retry after ${result.retryAfter} s`
                : "the API key is unknown or revoked"
            )
            return Effect.void
          }))
          return
        }
        switch (frame?.type) {
          case "ping":
            c.sendText("{\"type\":\"pong\"}")
            return void runFork(heartbeat.touch(c.userId))
          case "ack":
            return void runFork(heartbeat.touch(c.userId))
          case "pong":
            return
          case "auth":
            return c.sendText(errorFrame("already authenticated"))
          default:
            return c.sendText(errorFrame("expected a JSON frame of type ping, pong, ack or auth"))
        }
      })
      ws.on("pong", () => {
        if (conn !== undefined) conn.alive = true
      })
      // a protocol error (a frame past maxPayload: 1009) closes the socket: its peer gets the same short while to answer
      ws.on("error", () => void (hangUp ??= setTimeout(() => ws.terminate(), closeTimeout)))
      ws.once("close", () => {
        closed = true
        clearTimeout(hangUp)
        if (authTimer !== undefined) runFork(authTimer.interruptAsFork(authTimer.id()))
        if (conn !== undefined) {
          conn.closed = true
          runFork(hub.detach(conn))
        }
      })
      if (header !== undefined) runFork(start(header))
    }

    yield* router.get(
      "/api/agent/ws",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
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
        const req: IncomingMessage = takeOver(request)
        const tcp = req.socket
        // clients send nothing before the 101, so the upgrade carries no buffered head
        wss.handleUpgrade(req, tcp, Buffer.alloc(0), (ws) => session(ws, tcp, header, after))
        return HttpServerResponse.empty()
      })
    )
  })
).pipe(Layer.provide(EventsRepo.Default))
