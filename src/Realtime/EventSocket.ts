import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { Auth } from "@shoal/domain"
import { Events } from "@shoal/domain"
import { Config, Duration, Effect, FiberSet, Option } from "effect"
import type { IncomingMessage } from "node:http"
import type { Socket as TcpSocket } from "node:net"
import { WebSocket, WebSocketServer } from "ws"
import { KeyCheck } from "../Auth.js"
import { Heartbeat } from "../Auth/Heartbeat.js"
import { PenaltyBox } from "../Edge/PenaltyBox.js"
import { stopReading } from "../Http/HoldingServer.js"
import { AgentHub } from "./AgentHub.js"
import { Connection } from "./Connection.js"
import { EventsRepo } from "./EventsRepo.js"
import { FrameLimitConfig, takeFrame } from "./FrameLimit.js"
import { PendingAuth } from "./PendingAuth.js"
import { drained, errorFrame, parseFrame, Session, sessionOf, takeOver } from "./SocketSession.js"

const PAGE = 500
/** after a protocol error, how long the close frame (already written) has to leave before the socket is destroyed */
const PROTOCOL_ERROR_GRACE_MS = 500
const { rateLimited, unauthorized } = Events.CloseCodes
/** RFC 6455's registry: the server cannot serve the socket now; the client may reconnect */
const tryAgainLater = 1013

/**
 * The event socket's sessions, handed each upgrade by the route that checks the request (WebSocket.ts). Key in a
 * header (checked by the route) or in a first frame `{"type":"auth","api_key":…}` within 10 s (else close 4401).
 * Then `ready` with the current cursor, the replay of `?after=` if asked, and live events; ping/pong and ack frames.
 */
export class EventSocket extends Effect.Service<EventSocket>()("Realtime/EventSocket", {
  scoped: Effect.gen(function*() {
    const hub = yield* AgentHub
    const repo = yield* EventsRepo
    const keys = yield* KeyCheck
    const heartbeat = yield* Heartbeat
    const maxBuffered = yield* Config.integer("WS_MAX_BUFFERED_BYTES").pipe(Config.withDefault(1024 * 1024))
    const authTimeout = yield* Config.duration("WS_AUTH_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))
    // what a socket's callbacks start runs in a set owned by this route's scope: interrupted at shutdown, never leaked
    const runFork = yield* FiberSet.makeRuntime<never>()
    // how long the peer of a socket that never authenticated has to answer its close frame (authenticated sockets
    // keep ws's 30 s, so a slow reader still gets its 4008 and cursor)
    const closeTimeout = Duration.toMillis(
      yield* Config.duration("WS_CLOSE_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5)))
    )
    // a frame past maxPayload closes the socket with 1009 before it is buffered whole
    const maxPayload = yield* Config.integer("WS_MAX_PAYLOAD_BYTES").pipe(Config.withDefault(64 * 1024))
    // client frames per socket (CONTRACT "Who may do what"): past the limit, closed 4429 and read no further
    const frames = yield* FrameLimitConfig
    const floodNotice = `too many frames: at most ${frames.perSecond} a second (bursts of ${frames.burst})`
    const authNotice = `authenticate within ${Duration.format(authTimeout)}: {"type":"auth","api_key":…}`
    const authTimeoutMs = Duration.toMillis(authTimeout)
    // a client's frames are handed over one per turn of the event loop: a flood's chunk of thousands never holds
    // up the server's other work
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload,
      clientTracking: false,
      allowSynchronousEvents: false
    })
    const clock = yield* Effect.clock
    // a 1009 or a 4401 at the deadline is a strike against the peer's address (src/Edge/PenaltyBox.ts)
    const box = Option.getOrUndefined(yield* Effect.serviceOption(PenaltyBox))?.strikes
    // sockets waiting for their auth frame, per address (src/Realtime/PendingAuth.ts); a refusal is a strike
    const pendingAuth = new PendingAuth(
      yield* Config.integer("WS_PENDING_AUTH_PER_IP").pipe(Config.withDefault(100)),
      (address) => box?.strike(address)
    )
    yield* Effect.addFinalizer(() => Effect.sync(() => wss.close()))

    /** backfill → cut-over → live: pages from the database, then what the dispatcher handed over meanwhile */
    const replay = (conn: Connection) =>
      Effect.gen(function*() {
        while (!conn.closed) {
          const rows = yield* Effect.orDie(repo.after(conn.lastSent, PAGE, conn.userId))
          for (const row of rows) conn.replay(row)
          if (rows.length === PAGE) yield* drained(conn, maxBuffered)
          else if (conn.goLive()) return
        }
      })

    /** Closes a socket that has not authenticated; it is destroyed if its peer does not answer in time. */
    const refuse = (s: Session, code: number, reason: string) => {
      s.ws.close(code, reason)
      s.hangUp ??= setTimeout(() => s.ws.terminate(), closeTimeout)
    }

    const authExpired = (s: Session) => {
      if (s.conn !== undefined || s.closed) return
      box?.strike(s.tcp.remoteAddress)
      refuse(s, unauthorized, authNotice)
    }

    // an auth frame that came in time whose key could not be checked in time either (a database slow to answer):
    // not a bad key, so not 4401, which tells a client to stop using it, but 1013, try again later
    const checkExpired = (s: Session) => {
      if (s.conn === undefined && !s.closed) refuse(s, tryAgainLater, "the key could not be checked in time; try again")
    }

    /**
     * The authenticated socket's connection, attached to its account's actor, told `ready`. Undefined if the socket
     * closed first. Live events wait until `goLive`.
     */
    const attach = (s: Session, principal: Auth.Principal): Effect.Effect<Connection | undefined> =>
      Effect.suspend(() => {
        // closed, or closing (its check came after a deadline had already refused it)
        if (s.closed || s.ws.readyState !== WebSocket.OPEN) return Effect.succeed(undefined)
        const c = new Connection(s.ws, s.tcp, principal.id, principal.keyHash, maxBuffered, 0, principal.sessionHash)
        s.conn = c
        pendingAuth.settle(s)
        clearTimeout(s.authTimer)
        const attached = Effect.map(hub.attach(c, principal.userType), (position) => {
          const now = clock.unsafeCurrentTimeMillis()
          // closed while attaching: the close handler may have run before the actor knew it
          if (s.closed) return void hub.detach(c, now)
          c.lastSent = s.after ?? position
          // presence is seen to below (touch): the heartbeat need not wake AgentHub for it again
          heartbeat.seenAt(c.userId, now)
          c.sendText(JSON.stringify({ type: "ready", cursor: position }))
          return c
        })
        return principal.userType === "agent"
          ? Effect.tap(attached, (c) => c === undefined ? Effect.void : hub.touch(c.userId))
          : attached
      })

    /** Starts an authenticated session: `ready`, then the replay of `?after=` if asked (in the caller's fiber). */
    const start = (s: Session, principal: Auth.Principal): Effect.Effect<void> =>
      Effect.flatMap(attach(s, principal), (c) => {
        if (c === undefined) return Effect.void
        if (s.after === undefined) return Effect.sync(() => void c.goLive())
        return replay(c)
      }).pipe(
        // a socket that cannot go live is closed, so its client resumes elsewhere instead of waiting forever
        Effect.catchAllCause((cause) =>
          Effect.zipRight(Effect.logWarning("event socket failed to start", cause), Effect.sync(() => s.ws.close(1011)))
        )
      )

    /**
     * A frame within the socket's limit; past it the socket is closed 4429 and stops being read at once: `ws` is
     * paused (no more reads from its TCP socket) and our listeners removed, so what it still holds is dropped
     * unparsed. Its close frame cannot be answered unread: it is destroyed after a moment, as after a protocol error.
     */
    const frameAllowed = (s: Session): boolean => {
      if (takeFrame(frames, s, clock.unsafeCurrentTimeMillis())) return true
      s.ws.off("message", onMessage).off("ping", onPing).off("pong", onPong)
      s.ws.pause()
      if (s.conn !== undefined) s.conn.close(rateLimited, floodNotice)
      else s.ws.close(rateLimited, floodNotice)
      s.hangUp ??= setTimeout(() => s.ws.terminate(), Math.min(closeTimeout, PROTOCOL_ERROR_GRACE_MS))
      return false
    }

    // one listener of each kind for every socket (`this` is the socket; its session hangs off it), not a set of
    // closures per socket: 10,000 open sockets are 10,000 small objects, not 50,000
    function onMessage(this: WebSocket, data: Buffer) {
      const s = sessionOf(this)
      if (!frameAllowed(s)) return
      const frame = parseFrame(data)
      const c = s.conn
      if (c === undefined) {
        // frames that follow the auth frame before it is checked are ignored
        if (s.authenticating) return
        s.authenticating = true
        if (frame?.type !== "auth" || typeof frame.api_key !== "string") {
          return refuse(s, unauthorized, "authenticate first: {\"type\":\"auth\",\"api_key\":…}")
        }
        // the frame met the deadline: what is left is the server's own check, which gets a deadline of its own
        clearTimeout(s.authTimer)
        s.authTimer = setTimeout(checkExpired, authTimeoutMs, s)
        runFork(Effect.flatMap(keys.checkKey(frame.api_key), (result) => {
          if (result._tag === "Allowed") return start(s, result.principal)
          if (result._tag !== "Limited") refuse(s, unauthorized, "the API key is unknown or revoked")
          else refuse(s, rateLimited, `rate limited; retry after ${result.decision.retryAfter} s`)
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
    }
    function onPong(this: WebSocket) {
      const s = sessionOf(this)
      if (frameAllowed(s) && s.conn !== undefined) s.conn.alive = true
    }
    // ws answers a client's ping itself; it is a frame all the same
    function onPing(this: WebSocket) {
      frameAllowed(sessionOf(this))
    }
    // A protocol error (1009: a frame past maxPayload) closes the socket, and ws resumes reading to discard what
    // the peer still sends: a peer streaming megabytes would have every chunk allocated. Nothing is read after the
    // error (stopped on the next tick, after ws's resume), and with the peer's close frame unreadable the socket is
    // destroyed once its own close frame has had a moment to leave.
    function onError(this: WebSocket) {
      const s = sessionOf(this)
      if (s.hangUp === undefined) box?.strike(s.tcp.remoteAddress)
      process.nextTick(stopReading, s.tcp)
      s.hangUp ??= setTimeout(() => s.ws.terminate(), Math.min(closeTimeout, PROTOCOL_ERROR_GRACE_MS))
    }
    function onClose(this: WebSocket) {
      const s = sessionOf(this)
      s.closed = true
      pendingAuth.settle(s)
      clearTimeout(s.hangUp)
      clearTimeout(s.authTimer)
      if (s.conn !== undefined) {
        s.conn.closed = true
        hub.detach(s.conn, clock.unsafeCurrentTimeMillis())
      }
    }

    const session = (ws: WebSocket, tcp: TcpSocket, header: Auth.Principal | undefined, after: number | undefined) => {
      const s = new Session(ws, tcp, after)
      // a key in the header was checked: frames before `ready` are not an auth frame
      if (header !== undefined) s.authenticating = true
      else {
        s.authTimer = setTimeout(authExpired, authTimeoutMs, s)
        pendingAuth.enter(s, tcp.remoteAddress)
      }
      ws.on("message", onMessage).on("ping", onPing).on("pong", onPong).on("error", onError).on("close", onClose)
      return s
    }

    /**
     * Takes the request's socket and upgrades it; with a key from the header, the session starts in the caller's
     * fiber (the request's: no fiber of its own per connect), a resume's replay in a fiber of its own.
     */
    const accept = (
      request: HttpServerRequest.HttpServerRequest,
      header: Auth.Principal | undefined,
      after?: number
    ): Effect.Effect<void> =>
      Effect.suspend(() => {
        const req: IncomingMessage = takeOver(request)
        let s: Session | undefined
        // clients send nothing before the 101, so the upgrade carries no buffered head; with no `verifyClient`, ws
        // calls back at once (or never, for a socket already gone)
        wss.handleUpgrade(req, req.socket, Buffer.alloc(0), (ws) => (s = session(ws, req.socket, header, after)))
        if (s === undefined || header === undefined) return Effect.void
        return after === undefined ? start(s, header) : Effect.asVoid(Effect.sync(() => runFork(start(s!, header))))
      })

    return { accept, refusesKeyless: pendingAuth.refuses } as const
  }),
  dependencies: [EventsRepo.Default]
}) {}
