import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Net from "node:net"
import { freePort } from "../../bench/support.js"
import { Edge } from "../../src/Edge.js"
import { WriteAdmission } from "../../src/Edge/WriteAdmission.js"
import { listen } from "../../src/Http/Serve.js"
import { configLayer } from "../support/TestApp.js"

const ok = HttpRouter.empty.pipe(HttpRouter.get("/", HttpServerResponse.text("ok")))

/** `listen`'s server (the one `npm start` runs) with the process's edge, answering GET / with "ok". */
const served = (config: Record<string, string>) =>
  Layer.unwrapEffect(
    Effect.map(Effect.promise(freePort), (port) =>
      HttpServer.serve(ok).pipe(
        Layer.provideMerge(listen("test API", "PORT", 8080)),
        Layer.provideMerge(Edge),
        Layer.provide(configLayer({
          HOST: "127.0.0.1",
          PORT: String(port),
          // one 408 past the first boxes an address; at most two open connections per address
          HTTP_HEADERS_TIMEOUT: "300 millis",
          HTTP_PENALTY_THRESHOLD: "1",
          HTTP_MAX_CONNECTIONS_PER_IP: "2",
          WRITE_CONCURRENCY: "8",
          ...config
        }))
      ))
  )

const port = Effect.map(HttpServer.HttpServer, (s) => (s.address as HttpServer.TcpAddress).port)

/** A connection from `from` that sends `head`: what came back before it closed, or before `ms` passed. */
const exchange = (to: number, from: string, head: string, ms: number) =>
  Effect.promise(() =>
    new Promise<{ data: string; closed: boolean }>((resolve) => {
      const socket = Net.connect({ port: to, host: "127.0.0.1", localAddress: from })
      let data = ""
      socket.on("connect", () => socket.write(head))
      socket.on("data", (d) => void (data += d.toString()))
      socket.on("error", () => {})
      socket.on("close", () => resolve({ data, closed: true }))
      setTimeout(() => {
        socket.destroy()
        resolve({ data, closed: false })
      }, ms)
    })
  )

const get = "GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
/** a request head never finished: answered 408 at the header deadline, a strike against its address */
const slow = "GET / HTTP/1.1\r\n"

/** Two 408s from `from`, then a plain GET from it. */
const boxThenGet = (from: string) =>
  Effect.gen(function*() {
    const to = yield* port
    for (let i = 0; i < 2; i++) expect((yield* exchange(to, from, slow, 3_000)).data).toMatch(/^HTTP\/1.1 408/)
    return yield* exchange(to, from, get, 700)
  })

/** Three connections from `from` at once: how many the server reset within 500 ms. */
const threeAtOnce = (from: string) =>
  Effect.gen(function*() {
    const to = yield* port
    const open = Array.from({ length: 3 }, () => Net.connect({ port: to, host: "127.0.0.1", localAddress: from }))
    const closed = open.map((s) => new Promise<boolean>((r) => (s.on("error", () => {}), s.on("close", () => r(true)))))
    const settled = yield* Effect.promise(() =>
      Promise.all(closed.map((c) => Promise.race([c, new Promise<boolean>((r) => setTimeout(() => r(false), 500))])))
    )
    for (const s of open) s.destroy()
    return settled.filter(Boolean).length
  })

describe("EDGE_HARDENING", () => {
  layer(served({}), { timeout: 30_000 })("on (the default)", (it) => {
    it.effect("a boxed address's connection is held unanswered", () =>
      Effect.gen(function*() {
        expect(yield* boxThenGet("127.0.0.2")).toEqual({ data: "", closed: false })
        // another address is served
        expect((yield* exchange(yield* port, "127.0.0.3", get, 2_000)).data).toMatch(/^HTTP\/1.1 200/)
      }))

    it.effect("an address's connections past HTTP_MAX_CONNECTIONS_PER_IP are reset", () =>
      Effect.gen(function*() {
        expect(yield* threeAtOnce("127.0.0.4")).toBe(1)
      }))

    it.effect("writes are admitted through a queue", () =>
      Effect.gen(function*() {
        expect((yield* WriteAdmission).queue).toBeDefined()
      }))
  })

  layer(served({ EDGE_HARDENING: "false" }), { timeout: 30_000 })("false", (it) => {
    it.effect("the same address, after the same 408s, is served", () =>
      Effect.gen(function*() {
        expect((yield* boxThenGet("127.0.0.2")).data).toMatch(/^HTTP\/1.1 200/)
      }))

    it.effect("an address may hold more connections than HTTP_MAX_CONNECTIONS_PER_IP", () =>
      Effect.gen(function*() {
        expect(yield* threeAtOnce("127.0.0.4")).toBe(0)
      }))

    it.effect("writes go straight to the router, whatever WRITE_CONCURRENCY says", () =>
      Effect.gen(function*() {
        expect((yield* WriteAdmission).queue).toBeUndefined()
      }))
  })
})
