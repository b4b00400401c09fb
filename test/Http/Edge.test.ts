import { HttpServer, OpenApi } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Wallet } from "@shoal/domain"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp, uniqueHandle } from "../support/TestApp.js"
import { chunked, exchange } from "./RawSocket.js"

const json = (v: unknown) => JSON.stringify(v)

/** Adversarial input at the edge: every request answered in bounded time, with the contract's JSON body. */

const port = Effect.map(HttpServer.HttpServer, (server) => (server.address as HttpServer.TcpAddress).port)

const head = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n` +
  Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n"

describeApp()("the edge", (it) => {
  it.effect("an empty multipart body is answered at once as the empty body, public or keyed, POST or PATCH", () =>
    Effect.gen(function*() {
      const p = yield* port
      const human = yield* signUp()
      // an empty body is the empty JSON body: the first two need fields, the profile patch has none required
      const routes: Array<[string, string, string | undefined, number]> = [
        ["POST", "/api/accounts", undefined, 400],
        ["POST", "/api/account/agents", human.api_key, 400],
        ["PATCH", "/api/agent/profile", human.api_key, 200]
      ]
      for (const [method, path, key, status] of routes) {
        const headers = {
          "content-type": "multipart/form-data; boundary=xyz",
          "content-length": "0",
          ...(key ? { authorization: `Bearer ${key}` } : {})
        }
        const res = yield* Effect.promise(() => exchange(p, [head(method, path, headers)], { timeoutMs: 5_000 }))
        try {
          expect(res.timedOut).toBe(false)
          if (status === 400) expect(expectError(res, 400, "invalid_request").message).toMatch(/is required/)
          else expect(res.status).toBe(status)
        } catch (e) {
          throw new Error(`${method} ${path}: ${(e as Error).message} (${res.status} ${res.text.slice(0, 200)})`)
        }
      }
    }))
})

describeApp()("bodies that are not JSON", (it) => {
  it.effect("a non-empty body of any other type is a 415 and stores nothing", () =>
    Effect.gen(function*() {
      const handle = uniqueHandle("form")
      const human = yield* signUp(uniqueHandle("mt"), "Before")
      const cases: Array<[string, "POST" | "PATCH", string, string, string, string?]> = [
        [
          "a cross-site form",
          "POST",
          "/api/accounts",
          "application/x-www-form-urlencoded",
          `handle=${handle}&display_name=F`
        ],
        ["malformed multipart", "POST", "/api/accounts", "multipart/form-data; boundary=xyz", "garbage"],
        [
          "a multipart form",
          "POST",
          "/api/accounts",
          "multipart/form-data; boundary=xyz",
          `--xyz\r\ncontent-disposition: form-data; name="handle"\r\n\r\n${handle}\r\n--xyz--\r\n`
        ],
        ["text/plain", "POST", "/api/accounts", "text/plain", json({ handle, display_name: "T" })],
        ["application/jsonp", "POST", "/api/accounts", "application/jsonp", json({ handle, display_name: "T" })],
        [
          "octet-stream",
          "POST",
          "/api/account/agents",
          "application/octet-stream",
          json({ handle, display_name: "T" }),
          human.api_key
        ],
        ["XML", "PATCH", "/api/agent/profile", "application/xml", "<bio>x</bio>", human.api_key],
        ["a body on key rotation", "POST", "/api/account/api-key", "text/plain", "x", human.api_key]
      ]
      for (const [name, method, path, type, body, key] of cases) {
        const res = yield* rawRequest(method, path, {
          body,
          headers: { "content-type": type },
          ...(key ? { key } : {})
        })
        try {
          expect(expectError(res, 415, "unsupported_media_type").message).toMatch(/JSON/)
        } catch (e) {
          throw new Error(`${name}: ${(e as Error).message}`)
        }
      }
      expect((yield* human.client.profiles.me()).user.display_name).toBe("Before")
      // the key still works (the rotation was refused) and the handle is still free
      const ok = yield* rawRequest("POST", "/api/accounts", { body: json({ handle, display_name: "Finally" }) })
      expect(ok.status).toBe(201)
    }))

  it.effect("JSON by any of its names is accepted; an empty body needs no JSON type", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      for (const type of ["application/json; charset=utf-8", "APPLICATION/JSON", "application/merge-patch+json"]) {
        const res = yield* rawRequest("PATCH", "/api/agent/profile", {
          body: json({ bio: type }),
          headers: { "content-type": type },
          key: human.api_key
        })
        expect(res.status, type).toBe(200)
        expect(res.body.bio).toBe(type)
      }
      // key rotation: no body and no type, or an empty body of another type
      const first = yield* rawRequest("POST", "/api/account/api-key", { key: human.api_key })
      expect(first.status).toBe(200)
      const second = yield* rawRequest("POST", "/api/account/api-key", {
        body: "",
        headers: { "content-type": "text/plain" },
        key: first.body.api_key
      })
      expect(second.status).toBe(200)
    }))

  it.effect("the 415 is in both OpenAPI documents", () =>
    Effect.gen(function*() {
      const doc = yield* rawRequest("GET", "/openapi.json")
      expect(JSON.stringify(doc.body)).toContain("unsupported_media_type")
      expect(JSON.stringify(OpenApi.fromApi(Wallet.WalletApi))).toContain("unsupported_media_type")
    }))
})

describeApp()("a chunked body", (it) => {
  it.effect("over 1 MiB is a JSON 413 the client reads (no reset), public or keyed; under it, it is decoded", () =>
    Effect.gen(function*() {
      const p = yield* port
      const human = yield* signUp(uniqueHandle("ch"), "Before")
      const chunkedHead = (method: string, path: string, key?: string) =>
        head(method, path, {
          "content-type": "application/json",
          "transfer-encoding": "chunked",
          ...(key ? { authorization: `Bearer ${key}` } : {})
        })
      for (const [method, path, key] of [["POST", "/api/accounts"], ["PATCH", "/api/agent/profile", human.api_key]]) {
        const res = yield* Effect.promise(() =>
          exchange(p, [chunkedHead(method!, path!, key), ...chunked(1024 * 1024 + 100_000)], { timeoutMs: 10_000 })
        )
        try {
          expect(res.reset).toBe(false)
          expectError(res, 413, "payload_too_large")
        } catch (e) {
          throw new Error(`${method} ${path}: ${(e as Error).message} (${res.status} ${res.text.slice(0, 200)})`)
        }
      }
      expect((yield* human.client.profiles.me()).user.display_name).toBe("Before")
      const body = json({ display_name: "After" })
      const small = yield* Effect.promise(() =>
        exchange(p, [
          chunkedHead("PATCH", "/api/agent/profile", human.api_key),
          `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
        ])
      )
      expect(small.status).toBe(200)
      expect(small.body.display_name).toBe("After")
    }))
})

describeApp()("NUL characters", (it) => {
  it.effect("anywhere in the input are a 400 naming the field, and nothing is stored", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("nul"), "Before")
      const handle = uniqueHandle("nul")
      const nul = "a\u0000b"
      const cases: Array<[string, "GET" | "POST" | "PATCH", string, string | undefined, string | undefined]> = [
        ["display_name", "PATCH", "/api/agent/profile", json({ display_name: nul }), human.api_key],
        ["bio", "PATCH", "/api/agent/profile", json({ bio: nul }), human.api_key],
        ["identity.x", "PATCH", "/api/agent/profile", json({ identity: { x: nul } }), human.api_key],
        ["identity.info", "PATCH", "/api/agent/profile", json({ identity: { info: nul } }), human.api_key],
        [
          "webhook_url",
          "PATCH",
          "/api/agent/profile",
          json({ webhook_url: `https://example.com/${nul}` }),
          human.api_key
        ],
        ["display_name", "POST", "/api/accounts", json({ handle, display_name: nul }), undefined],
        ["handle", "POST", "/api/accounts", json({ handle: `${handle}\u0000`, display_name: "x" }), undefined],
        ["bio", "POST", "/api/account/agents", json({ handle, display_name: "x", bio: nul }), human.api_key],
        [
          "redirect_url",
          "PATCH",
          "/api/agent/domains/shoal",
          json({ domain_mode: "redirect", redirect_url: `https://x.com/${nul}` }),
          human.api_key
        ],
        ["q", "GET", "/api/agent/users/search?q=a%00b", undefined, human.api_key],
        ["after", "GET", "/api/agent/events?after=%00", undefined, human.api_key],
        ["name", "GET", "/.well-known/nostr.json?name=a%00", undefined, undefined],
        ["path", "GET", "/api/identity/a%00b", undefined, undefined],
        ["path", "GET", "/api/identity/%zz%00", undefined, undefined],
        ["path", "POST", "/api/agent/webhooks/deliveries/a%00b/retry", undefined, human.api_key]
      ]
      for (const [field, method, path, body, key] of cases) {
        const res = yield* rawRequest(method, path, { ...(body ? { body } : {}), ...(key ? { key } : {}) })
        try {
          const err = expectError(res, 400, "invalid_request")
          expect(err.message).toMatch(/NUL/)
          expect(err.details).toMatchObject({ issues: expect.arrayContaining([expect.objectContaining({ field })]) })
        } catch (e) {
          throw new Error(`${method} ${path} ${field}: ${(e as Error).message}`)
        }
      }
      const me = yield* human.client.profiles.me()
      expect(me.user).toMatchObject({ display_name: "Before", bio: "", identity: {} })
      const ok = yield* rawRequest("POST", "/api/accounts", { body: json({ handle, display_name: "Finally" }) })
      expect(ok.status).toBe(201)
    }))
})
