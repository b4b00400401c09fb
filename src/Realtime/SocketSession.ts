import { NodeHttpServerRequest } from "@effect/platform-node"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Option } from "effect"
import type { Socket as TcpSocket } from "node:net"
import type { WebSocket } from "ws"
import { closeListenersToKeep } from "../Http/HoldingServer.js"
import type { Connection } from "./Connection.js"

/** The event socket's per-socket pieces (src/Realtime/EventSocket.ts): frames, the session, the TCP take-over. */

export type Frame = { readonly type?: unknown; readonly [k: string]: unknown }

const parseJson = Option.liftThrowable((data: Buffer): unknown => JSON.parse(data.toString("utf8")))

export const parseFrame = (data: Buffer): Frame | undefined => {
  const value = Option.getOrUndefined(parseJson(data))
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Frame : undefined
}

/** Waits until the socket's queue has drained below half of `maxBuffered` (or it closed): a replay's backpressure. */
export const drained = (conn: Connection, maxBuffered: number): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (conn.ws.bufferedAmount >= maxBuffered / 2 && !conn.closed) {
      yield* Effect.async<void>((resume) => {
        const done = () => resume(Effect.void)
        conn.tcp.once("drain", done).once("close", done)
        return Effect.sync(() => conn.tcp.off("drain", done).off("close", done))
      })
    }
  })

export const errorFrame = (message: string) => JSON.stringify({ type: "error", message })

/**
 * Takes the upgraded TCP socket away from the HTTP layer (its response marked finished: nothing is written after
 * the 101): an open socket costs plain objects and callbacks, not a suspended request fiber (≈ 70 KB).
 */
export const takeOver = (request: HttpServerRequest.HttpServerRequest) => {
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

const kSession = Symbol("Realtime/Session")
type WithSession = WebSocket & { [kSession]: Session }
export const sessionOf = (ws: WebSocket) => (ws as WithSession)[kSession]

/** One socket's state before and after it authenticates (the connection, once it has one); found by `sessionOf`. */
export class Session {
  conn: Connection | undefined = undefined
  /** an auth frame (or a header key) is being or was checked: later frames before `ready` are ignored */
  authenticating = false
  closed = false
  hangUp: ReturnType<typeof setTimeout> | undefined = undefined
  /** the auth deadline: a plain timer, not a fiber (thousands of sockets that never authenticate cost little) */
  authTimer: ReturnType<typeof setTimeout> | undefined = undefined
  /** while it waits for its auth frame: its peer's address, counted in PendingAuth */
  pendingFrom: string | undefined = undefined
  /** client frames it may still send now (src/Realtime/FrameLimit.ts); undefined until its first frame */
  frameTokens: number | undefined = undefined
  frameAt = 0
  constructor(readonly ws: WebSocket, readonly tcp: TcpSocket, readonly after: number | undefined) {
    ;(ws as WithSession)[kSession] = this
  }
}
