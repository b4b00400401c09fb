import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { AppNode, configLayer, describeApp, signUp } from "../support/TestApp.js"
import { TestDatabase } from "../support/TestDatabase.js"
import { exchange } from "./RawSocket.js"

/** Adversarial input at the edge: every request answered in bounded time, with the contract's JSON body. */

const port = Effect.map(HttpServer.HttpServer, (server) => (server.address as HttpServer.TcpAddress).port)

const head = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n` +
  Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n"

describeApp()("the edge", (it) => {
  it.effect("an empty multipart body is answered at once (400), public or keyed, POST or PATCH", () =>
    Effect.gen(function*() {
      const p = yield* port
      const human = yield* signUp()
      const routes: Array<[string, string, string | undefined]> = [
        ["POST", "/api/accounts", undefined],
        ["POST", "/api/account/agents", human.api_key],
        ["PATCH", "/api/agent/profile", human.api_key]
      ]
      for (const [method, path, key] of routes) {
        const headers = {
          "content-type": "multipart/form-data; boundary=xyz",
          "content-length": "0",
          ...(key ? { authorization: `Bearer ${key}` } : {})
        }
        const res = yield* Effect.promise(() => exchange(p, [head(method, path, headers)], { timeoutMs: 5_000 }))
        try {
          expect(res.timedOut).toBe(false)
          // an empty body is the empty JSON body: these operations need fields
          expectError(res, 400, "invalid_request")
        } catch (e) {
          throw new Error(`${method} ${path}: ${(e as Error).message} (${res.status} ${res.text.slice(0, 200)})`)
        }
      }
    }))
})

const SlowRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.all([router.get("/api/test/never", Effect.never), router.post("/api/test/never", Effect.never)])
)

layer(
  AppNode(TestDatabase, SlowRoutes).pipe(Layer.provide(configLayer({ HTTP_HANDLER_TIMEOUT: "1 second" }))),
  { excludeTestServices: true }
)("a handler that never answers", (it) => {
  it.effect("is cut off at HTTP_HANDLER_TIMEOUT with a JSON 503", () =>
    Effect.gen(function*() {
      for (const method of ["GET", "POST"] as const) {
        const started = Date.now()
        const res = yield* rawRequest(method, "/api/test/never", method === "POST" ? { body: "{}" } : {})
        expectError(res, 503, "unavailable")
        expect(Date.now() - started).toBeLessThan(4_000)
      }
    }))
})
