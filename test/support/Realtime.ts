import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import type { EventCatalog, Ids } from "@shoal/domain"
import { Effect, Layer } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import WebSocket from "ws"
import { Outbox } from "../../src/Realtime/Outbox.js"
import { AppNode, configLayer } from "./TestApp.js"
import { TestDatabase } from "./TestDatabase.js"

export { configLayer }

/**
 * TestApp plus handles on the same instances the app uses (layers are memoized by reference): the outbox to emit
 * test events, the hub, the SqlClient, and the server's address for WebSocket clients.
 */
export const RealtimeApp = (config: Record<string, string> = {}) =>
  AppNode(TestDatabase).pipe(Layer.provide(configLayer(config)))

/**
 * `outbox.emit` for made-up types ("test.…"): storage and delivery never look at the type, so the transport tests
 * use their own; the code under test only gets the typed `emit`, which takes catalog events.
 */
export const emitLoose = (outbox: Outbox, recipients: ReadonlyArray<string>, type: string, data: unknown = {}) =>
  outbox.emit(recipients as ReadonlyArray<Ids.UserId>, type as EventCatalog.EventType, data as never)

/** Emits one made-up event per call, each in its own transaction (as a domain write would). */
export const emit = (recipients: ReadonlyArray<string>, type: string, data: unknown = {}) =>
  Effect.flatMap(
    Outbox,
    (outbox) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(emitLoose(outbox, recipients, type, data)))
  )

/** Emits one catalog event in its own transaction. */
export const emitEvent = <T extends EventCatalog.EventType>(
  recipients: ReadonlyArray<string>,
  type: T,
  data: EventCatalog.EventData<T>
) =>
  Effect.flatMap(
    Outbox,
    (outbox) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(outbox.emit(recipients as ReadonlyArray<Ids.UserId>, type, data)))
  )

export const wsUrl = (query = "") =>
  Effect.map(HttpServer.HttpServer, (server) => {
    const address = server.address as HttpServer.TcpAddress
    return `ws://127.0.0.1:${address.port}/api/agent/ws${query}`
  })

/** Real time, whatever Clock the test runs on. */
export const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((r) => setTimeout(r, ms)))

/** Polls `check` until it returns something other than undefined, or fails after `timeoutMs` (real time). */
export const waitFor = <A>(what: string, check: () => A | undefined, timeoutMs = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (true) {
      const value = check()
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* realSleep(10)
    }
  })

export const waitForEffect = <A, E, R>(what: string, check: Effect.Effect<A | undefined, E, R>, timeoutMs = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (true) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* realSleep(25)
    }
  })

export interface Frame {
  readonly type: string
  readonly cursor?: number
  readonly event?: { readonly id: string; readonly type: string; readonly created_at: string; readonly data: any }
  readonly message?: string
}

/** A test WebSocket client that records every frame and how it ended. */
export class TestSocket {
  readonly frames: Array<Frame> = []
  closed: { code: number; reason: string } | undefined
  rejected: { status: number; body: any; headers: Http.IncomingHttpHeaders } | undefined
  opened = false

  constructor(readonly ws: WebSocket) {
    ws.on("open", () => {
      this.opened = true
    })
    ws.on("message", (data) => this.frames.push(JSON.parse(data.toString())))
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() }
    })
    ws.on("error", () => {})
    ws.on("unexpected-response", (_req, res) => {
      let text = ""
      res.on("data", (c) => (text += c))
      res.on("end", () => {
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {
          // not JSON: the assertion will say so
        }
        this.rejected = { status: res.statusCode ?? 0, body, headers: res.headers }
        this.closed = { code: 0, reason: "rejected" }
      })
    })
  }

  /** Event frames, optionally only those whose type starts with `prefix`. */
  events(prefix = ""): Array<Frame> {
    return this.frames.filter((f) => f.type === "event" && f.event!.type.startsWith(prefix))
  }

  send(frame: unknown) {
    this.ws.send(JSON.stringify(frame))
  }

  ready() {
    return waitFor("the ready frame", () => this.frames.find((f) => f.type === "ready"))
  }

  waitEvents(prefix: string, n: number, timeoutMs = 10_000) {
    return waitFor(`${n} ${prefix}* events`, () => {
      const got = this.events(prefix)
      return got.length >= n ? got : undefined
    }, timeoutMs)
  }

  waitClosed(timeoutMs = 10_000) {
    return waitFor("the socket to close", () => this.closed, timeoutMs)
  }

  close() {
    return Effect.zipRight(Effect.sync(() => this.ws.close()), this.waitClosed())
  }
}

export const openSocket = (options: {
  readonly key?: string
  readonly via?: "bearer" | "x-api-key" | "frame"
  readonly query?: string
  readonly headers?: Record<string, string>
}) =>
  Effect.acquireRelease(
    Effect.map(wsUrl(options.query), (url) => {
      const headers: Record<string, string> = { ...options.headers }
      const via = options.via ?? "bearer"
      if (options.key !== undefined && via === "bearer") headers.authorization = `Bearer ${options.key}`
      if (options.key !== undefined && via === "x-api-key") headers["x-api-key"] = options.key
      const socket = new TestSocket(new WebSocket(url, { headers }))
      if (options.key !== undefined && via === "frame") {
        socket.ws.on("open", () => socket.send({ type: "auth", api_key: options.key }))
      }
      return socket
    }),
    (s) => Effect.sync(() => s.ws.terminate())
  )

/** A local webhook receiver: answers each request with `respond(n)` where n counts requests per webhook-id. */
export interface Received {
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

export const receiver = (respond: (nth: number, req: Received) => number = () => 200) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly requests: Array<Received>; readonly server: Http.Server }>(
      (resume) => {
        const requests: Array<Received> = []
        const seen = new Map<string, number>()
        const server = Http.createServer((req, res) => {
          let body = ""
          req.on("data", (c) => (body += c))
          req.on("end", () => {
            const r = { headers: req.headers, body }
            requests.push(r)
            const id = String(req.headers["webhook-id"])
            const nth = (seen.get(id) ?? 0) + 1
            seen.set(id, nth)
            res.writeHead(respond(nth, r)).end()
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const port = (server.address() as AddressInfo).port
          resume(Effect.succeed({ url: `http://127.0.0.1:${port}/hook`, requests, server }))
        })
      }
    ),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )
