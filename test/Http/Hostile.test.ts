import { NodeHttpClient } from "@effect/platform-node"
import * as HttpServer from "@effect/platform/HttpServer"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Net from "node:net"
import WebSocket from "ws"
import { freePort } from "../../bench/support.js"
import { Edge } from "../../src/Edge.js"
import { listen } from "../../src/Http/Serve.js"
import { agentApi, EventWorkers, Maintenance, Services, Singletons } from "../../src/main.js"
import { rawRequest } from "../support/Raw.js"
import { emit, openSocket, realSleep, waitFor, waitForEffect } from "../support/Realtime.js"
import { configLayer, createAgent, signUp } from "../support/TestApp.js"
import { TestDatabase } from "../support/TestDatabase.js"

const PER_IP = 100

/** The app on the server `npm start` runs (`listen`: its timeouts and connection caps), not the test server. */
const HostileApp = (config: Record<string, string>) =>
  Layer.unwrapEffect(
    Effect.map(Effect.promise(freePort), (port) =>
      Layer.mergeAll(agentApi(Layer.empty), EventWorkers, Maintenance).pipe(
        Layer.provide(Services),
        Layer.provideMerge(Singletons),
        Layer.provideMerge(
          HttpServer.layerTestClient.pipe(
            Layer.provide(NodeHttpClient.layerWithoutAgent),
            Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
            // the process's edge (one: Singletons hold the same layer), as main.ts's servers see it
            Layer.provideMerge(listen("agent API", "PORT", 8080).pipe(Layer.provide(Edge)))
          )
        ),
        Layer.provideMerge(TestDatabase),
        Layer.provide(configLayer({ HOST: "127.0.0.1", PORT: String(port), ...config }))
      ))
  )

const port = Effect.map(HttpServer.HttpServer, (s) => (s.address as HttpServer.TcpAddress).port)

/** A request head dripped a line every `everyMs` from `from` until the server closes: its status and how long. */
const slowloris = (to: number, from: string, everyMs: number) =>
  new Promise<{ status: number; ms: number }>((resolve) => {
    const started = Date.now()
    const socket = Net.connect({ port: to, host: "127.0.0.1", localAddress: from })
    let data = ""
    let n = 0
    const timer = setInterval(() => socket.writable && socket.write(`x-drip-${n++}: 1\r\n`), everyMs)
    socket.on("connect", () => socket.write("GET /api/agent/me HTTP/1.1\r\nhost: x\r\n"))
    socket.on("data", (d) => void (data += d.toString("latin1")))
    socket.on("error", () => {})
    socket.on("close", () => {
      clearInterval(timer)
      resolve({ status: Number(data.split(" ")[1] ?? 0), ms: Date.now() - started })
    })
  })

/** The caller's own GET /api/agent/me, timed. */
const me = (key: string) =>
  Effect.gen(function*() {
    const started = Date.now()
    const res = yield* rawRequest("GET", "/api/agent/me", { key })
    return { status: res.status, ms: Date.now() - started }
  })

const closeOf = (ws: WebSocket) =>
  new Promise<{ code: number; ms: number }>((resolve) => {
    const started = Date.now()
    ws.on("error", () => {})
    ws.on("close", (code) => resolve({ code, ms: Date.now() - started }))
  })

layer(
  HostileApp({
    HTTP_HEADERS_TIMEOUT: "1 second",
    HTTP_MAX_CONNECTIONS_PER_IP: String(PER_IP),
    WS_AUTH_TIMEOUT: "1 second",
    WS_CLOSE_TIMEOUT: "1 second",
    WEBHOOK_TIMEOUT: "2 seconds",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_CONCURRENCY: "8",
    WEBHOOK_PER_RECEIVER: "2"
  }),
  { excludeTestServices: true, timeout: 60_000 }
)("hostile clients", (it) => {
  it.effect("slowloris connections get a 408 within the header timeout while a normal request is answered", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const to = yield* port
      const drips = Array.from({ length: 50 }, () => slowloris(to, "127.0.0.2", 100))
      yield* realSleep(300)
      for (let i = 0; i < 5; i++) {
        const res = yield* me(agent.api_key)
        expect(res.status).toBe(200)
        expect(res.ms).toBeLessThan(1_000)
      }
      const closed = yield* Effect.promise(() => Promise.all(drips))
      for (const c of closed) {
        expect(c.status).toBe(408)
        // 1 s, checked every 250 ms, plus a loaded machine's slack
        expect(c.ms).toBeLessThan(3_000)
      }
    }))

  it.effect("past HTTP_MAX_CONNECTIONS_PER_IP an address's connections are reset; other addresses are served", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const to = yield* port
      const sockets = Array.from({ length: PER_IP + 20 }, () => {
        const s = Net.connect({ port: to, host: "127.0.0.1", localAddress: "127.0.0.3" })
        const state = { closed: false }
        s.on("error", () => {})
        s.on("close", () => void (state.closed = true))
        return { s, state }
      })
      yield* waitFor(
        "the extra connections to be reset",
        () => sockets.filter((x) => x.state.closed).length >= 20 || undefined,
        5_000
      )
      yield* realSleep(200)
      expect(sockets.filter((x) => x.state.closed)).toHaveLength(20)
      expect((yield* me(agent.api_key)).status).toBe(200)
      for (const x of sockets) x.s.destroy()
      // their slots are given back as they close
      yield* realSleep(300)
      const again = Net.connect({ port: to, host: "127.0.0.1", localAddress: "127.0.0.3" })
      again.on("error", () => {})
      const reply = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          let data = ""
          again.on("connect", () => again.write("GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"))
          again.on("data", (d) => void (data += d.toString()))
          again.on("close", () => resolve(data))
        })
      )
      expect(reply.startsWith("HTTP/1.1 200")).toBe(true)
    }))

  it.scoped("unauthenticated event sockets are closed 4401 at WS_AUTH_TIMEOUT; an authenticated one gets its event", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const to = yield* port
      const idle = Array.from(
        { length: 50 },
        () => new WebSocket(`ws://127.0.0.1:${to}/api/agent/ws`, { localAddress: "127.0.0.4" })
      )
      const closes = idle.map(closeOf)
      const socket = yield* openSocket({ key: agent.api_key })
      yield* socket.ready()
      yield* emit([agent.agent.id], "test.hostile", { n: 1 })
      const [event] = yield* socket.waitEvents("test.hostile", 1)
      expect(event!.event!.data).toEqual({ n: 1 })
      for (const c of yield* Effect.promise(() => Promise.all(closes))) {
        expect(c.code).toBe(4401)
        expect(c.ms).toBeLessThan(3_500)
      }
      expect(socket.closed).toBeUndefined()
    }))

  it.scoped("a frame past the payload limit closes the socket with 1009, authenticated or not", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const to = yield* port
      const big = "x".repeat(65 * 1024)
      for (const headers of [{}, { authorization: `Bearer ${agent.api_key}` }]) {
        const ws = new WebSocket(`ws://127.0.0.1:${to}/api/agent/ws`, { headers, localAddress: "127.0.0.5" })
        const closed = closeOf(ws)
        ws.on("open", () => ws.send(big))
        expect((yield* Effect.promise(() => closed)).code).toBe(1009)
      }
      expect((yield* me(agent.api_key)).status).toBe(200)
    }))

  it.scoped("an address that keeps sending frames past the limit is boxed: its next socket stalls, others are served", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const to = yield* port
      const big = "x".repeat(65 * 1024)
      const from = "127.0.0.6"
      // HTTP_PENALTY_THRESHOLD is 20: the 21st 1009 boxes the address
      for (let i = 0; i < 21; i++) {
        const ws = new WebSocket(`ws://127.0.0.1:${to}/api/agent/ws`, { localAddress: from })
        const closed = closeOf(ws)
        ws.on("open", () => ws.send(big))
        expect((yield* Effect.promise(() => closed)).code).toBe(1009)
      }
      // held unread: no 101, no close, while the box is shut
      const stalled = new WebSocket(`ws://127.0.0.1:${to}/api/agent/ws`, { localAddress: from })
      const opened = { value: false }
      stalled.on("open", () => void (opened.value = true))
      const stalledClose = closeOf(stalled)
      yield* realSleep(1_000)
      expect(opened.value).toBe(false)
      expect((yield* me(agent.api_key)).status).toBe(200)
      const other = yield* openSocket({ key: agent.api_key })
      yield* other.ready()
      stalled.terminate()
      yield* Effect.promise(() => stalledClose)
    }))

  it.scoped(
    "a receiver that never answers times out and is retried later; another account's deliveries go through",
    () =>
      Effect.gen(function*() {
        const stuck = yield* neverAnswering
        const good = yield* answering
        const humanA = yield* signUp()
        const a = yield* createAgent(humanA.api_key)
        const humanB = yield* signUp()
        const b = yield* createAgent(humanB.api_key)
        for (const [agent, url] of [[a, stuck.url], [b, good.url]] as const) {
          const res = yield* rawRequest("PATCH", "/api/agent/profile", {
            key: agent.api_key,
            body: JSON.stringify({ webhook_url: url })
          })
          expect(res.status).toBe(200)
        }
        // three of its cap's worth: the first one's retry is due (7 s) after the last of them has timed out (6 s)
        for (let n = 0; n < 6; n++) yield* emit([a.agent.id], "test.stuck", { n })
        yield* waitFor("the stuck receiver to be called", () => stuck.seen.length > 0 || undefined)
        for (let n = 0; n < 3; n++) yield* emit([b.agent.id], "test.flowing", { n })
        yield* waitFor("the other account's deliveries", () => good.seen.length >= 3 || undefined)
        // through while the stuck receiver holds its share of the slots and not one of its attempts has timed out yet
        expect(stuck.maxOpen).toBeLessThanOrEqual(2)
        const firstId = stuck.seen[0]!.id
        const listA = rawRequest("GET", "/api/agent/webhooks/deliveries", { key: a.api_key }).pipe(
          Effect.map((r) => (r.body.deliveries as Array<any>).find((d) => d.event_id === firstId))
        )
        const timedOut = yield* waitForEffect(
          "the first attempt to time out",
          Effect.map(listA, (d) => d?.attempts.length === 1 ? d : undefined)
        )
        expect(timedOut.state).toBe("pending")
        expect(timedOut.attempts[0]).toMatchObject({ attempt: 1, status_code: null })
        expect(timedOut.attempts[0].error).toMatch(/^no response within 2s/)
        expect(Date.parse(timedOut.next_attempt_at) - Date.parse(timedOut.attempts[0].attempted_at)).toBeGreaterThan(
          5_000
        )
        // …and tried again about 5 s after it timed out
        yield* waitFor("the retry", () => stuck.seen.filter((s) => s.id === firstId).length >= 2 || undefined, 15_000)
        const [first, second] = stuck.seen.filter((s) => s.id === firstId)
        expect(second!.at - first!.at).toBeGreaterThanOrEqual(6_500)
        expect(stuck.maxOpen).toBeLessThanOrEqual(2)
      }),
    { timeout: 40_000 }
  )
})

interface Hook {
  readonly url: string
  readonly seen: Array<{ readonly id: string; readonly at: number }>
  maxOpen: number
}

/** A local webhook receiver that answers 200, or (`never`) reads the request and never answers it. */
const hook = (never: boolean) =>
  Effect.acquireRelease(
    Effect.async<Hook & { readonly server: Http.Server }>((resume) => {
      let open = 0
      const state = { seen: [] as Hook["seen"], maxOpen: 0 }
      const server = Http.createServer((req, res) => {
        state.seen.push({ id: String(req.headers["webhook-id"]), at: Date.now() })
        open++
        state.maxOpen = Math.max(state.maxOpen, open)
        res.on("close", () => void open--)
        req.resume()
        if (!never) res.writeHead(200).end()
      })
      server.listen(0, "127.0.0.1", () => {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
        resume(Effect.succeed(Object.assign(state, { url, server })))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
const neverAnswering = hook(true)
const answering = hook(false)
