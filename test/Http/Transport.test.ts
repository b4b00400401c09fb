import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { freePort } from "../../bench/support.js"
import { listen } from "../../src/Http/Serve.js"
import { expectError } from "../support/Raw.js"
import { configLayer } from "../support/TestApp.js"
import type { SocketAnswer } from "./RawSocket.js"
import { exchange } from "./RawSocket.js"

const ok = HttpRouter.empty.pipe(
  HttpRouter.get("/", HttpServerResponse.text("ok")),
  HttpRouter.get("/never", Effect.never),
  HttpRouter.post("/never", Effect.never)
)

/** Errors node answers before the app: the server `listen` builds (the one `npm start` runs), over a raw socket. */
const served = (config: Record<string, string>) =>
  Layer.unwrapEffect(
    Effect.map(Effect.promise(freePort), (port) =>
      HttpServer.serve(ok).pipe(
        Layer.provideMerge(listen("test API", "PORT", 8080)),
        Layer.provide(configLayer({ HOST: "127.0.0.1", PORT: String(port), ...config }))
      ))
  )

const send = (parts: ReadonlyArray<string>, options: { delayMs?: number; timeoutMs?: number } = {}) =>
  Effect.flatMap(
    HttpServer.HttpServer,
    (server) => Effect.promise(() => exchange((server.address as HttpServer.TcpAddress).port, parts, options))
  )

const jsonError = (res: SocketAnswer, status: number, code: string) => {
  try {
    expect(res.headers["content-type"]).toBe("application/json")
    return expectError(res, status, code)
  } catch (e) {
    throw new Error(`${(e as Error).message}: ${res.status} ${res.text.slice(0, 200)}`)
  }
}

/** A request head sent a line at a time, forever (until the server closes). */
const drip = ["GET / HTTP/1.1\r\n", ...Array.from({ length: 200 }, (_, i) => `x-drip-${i}: 1\r\n`)]

layer(served({ HTTP_HEADERS_TIMEOUT: "1 second", HTTP_HANDLER_TIMEOUT: "1 second" }), {
  excludeTestServices: true
})("transport errors", (it) => {
  it.effect("a handler that never answers is cut off at HTTP_HANDLER_TIMEOUT with a JSON 503", () =>
    Effect.gen(function*() {
      for (const method of ["GET", "POST"]) {
        const res = yield* send([
          `${method} /never HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`
        ])
        jsonError(res, 503, "unavailable")
        expect(res.ms).toBeLessThan(4_000)
      }
    }))

  it.effect("a well-formed request reaches the app", () =>
    Effect.gen(function*() {
      const res = yield* send(["GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"])
      expect(res.status).toBe(200)
      expect(res.text).toBe("ok")
    }))

  it.effect("headers over 16 KB are a JSON 431", () =>
    Effect.gen(function*() {
      const res = yield* send([`GET / HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`])
      jsonError(res, 431, "headers_too_large")
    }))

  it.effect("malformed framing is a JSON 400", () =>
    Effect.gen(function*() {
      const cases = [
        "GARBAGE\r\n\r\n",
        "GET / HTTP/1.1\r\nhost: x\r\na header without a colon\r\n\r\n",
        "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab",
        "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n"
      ]
      for (const raw of cases) {
        try {
          jsonError(yield* send([raw]), 400, "invalid_request")
        } catch (e) {
          throw new Error(`${JSON.stringify(raw)}: ${(e as Error).message}`)
        }
      }
    }))

  it.effect("a client dripping its headers gets a JSON 408 after HTTP_HEADERS_TIMEOUT and is closed", () =>
    Effect.gen(function*() {
      const res = yield* send(drip, { delayMs: 200, timeoutMs: 20_000 })
      jsonError(res, 408, "request_timeout")
      expect(res.ms).toBeLessThan(4_000)
    }))
})

layer(served({}), { excludeTestServices: true })("transport defaults", (it) => {
  it.effect(
    "a dripping client is closed after about 10 seconds (node's default: up to 90)",
    () =>
      Effect.gen(function*() {
        const res = yield* send(drip, { delayMs: 250, timeoutMs: 30_000 })
        expect(res.timedOut).toBe(false)
        jsonError(res, 408, "request_timeout")
        expect(res.ms).toBeGreaterThan(9_000)
        expect(res.ms).toBeLessThan(13_000)
      }),
    40_000
  )
})
