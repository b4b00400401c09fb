import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "./support/Raw.js"
import { createAgent, describeApp, signUp, uniqueHandle } from "./support/TestApp.js"

const json = (v: unknown) => JSON.stringify(v)

describeApp()("bad input: a clear JSON error with the right status, and nothing stored", (it) => {
  it.effect("sign-up refuses malformed or invalid bodies and stores no account", () =>
    Effect.gen(function*() {
      const handle = uniqueHandle("bad")
      const cases: Array<[string, string, Record<string, string>?]> = [
        ["malformed JSON", `{"handle":"${handle}",`],
        ["a JSON array", `[1,2]`],
        ["missing display_name", json({ handle })],
        ["missing handle", json({ display_name: "No Handle" })],
        ["a 1-char handle", json({ handle: "a", display_name: "x" })],
        ["a handle with a space", json({ handle: "has space", display_name: "x" })],
        ["a 33-char handle", json({ handle: "a".repeat(33), display_name: "x" })],
        ["display_name of the wrong type", json({ handle, display_name: 5 })],
        ["an empty display_name", json({ handle, display_name: "   " })],
        ["a display_name over 100 chars", json({ handle, display_name: "d".repeat(101) })],
        ["a bio over 2,000 chars", json({ handle, display_name: "x", bio: "b".repeat(2_001) })],
        ["an unknown field", json({ handle, display_name: "x", svc_gems: 1_000_000 })]
      ]
      for (const [name, body, headers] of cases) {
        const res = yield* rawRequest("POST", "/api/accounts", { body, ...(headers ? { headers } : {}) })
        try {
          expectError(res, 400, "invalid_request")
        } catch (e) {
          throw new Error(`${name}: ${(e as Error).message}`)
        }
      }
      // none of them created the account: the handle is still free
      const ok = yield* rawRequest("POST", "/api/accounts", { body: json({ handle, display_name: "Finally" }) })
      expect(ok.status).toBe(201)
    }))

  it.effect("a 400 names the offending field in details", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("POST", "/api/accounts", { body: json({ handle: "ok-handle", display_name: 7 }) })
      const err = expectError(res, 400, "invalid_request")
      expect(err.details).toEqual({
        field: "display_name",
        issues: [{ field: "display_name", message: "must be a string" }]
      })
      expect(err.message).toBe("display_name must be a string")
    }))

  it.effect("PATCH profile refuses mass assignment, bad identity values and private webhooks; nothing changes", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("patch"), "Before")
      const key = human.api_key
      const cases: Array<[string, unknown]> = [
        ["svc_gems (mass assignment)", { svc_gems: 1_000_000 }],
        ["handle (not writable)", { handle: "someone-else" }],
        ["user_type (not writable)", { user_type: "human", display_name: "After" }],
        ["an unknown identity key", { identity: { myspace: "x" } }],
        ["identity not an object", { identity: "x" }],
        ["an identity value of the wrong type", { identity: { x: 5 } }],
        ["a nostr value that is not an npub", { identity: { nostr: "npub1notreally" } }],
        ["a pfp that is not a URL", { identity: { pfp: "not a url" } }],
        ["a mail that is not an address", { identity: { mail: "nope" } }],
        ["a javascript: photo URL", { profile_photo_url: "javascript:alert(1)" }],
        ["a URL over 2,048 chars", { profile_photo_url: `https://example.com/${"p".repeat(2_048)}` }],
        ["a loopback webhook", { webhook_url: "http://127.0.0.1:9/hook", display_name: "After" }],
        ["a metadata-address webhook", { webhook_url: "http://169.254.169.254/latest" }],
        ["a private-range webhook", { webhook_url: "http://10.1.2.3/x" }],
        ["an IPv6 loopback webhook", { webhook_url: "http://[::1]:8080/x" }],
        ["a localhost webhook", { webhook_url: "http://localhost/x" }],
        ["an ftp webhook", { webhook_url: "ftp://example.com/x" }],
        ["display_name null", { display_name: null }]
      ]
      for (const [name, body] of cases) {
        const res = yield* rawRequest("PATCH", "/api/agent/profile", { body: json(body), key })
        try {
          expectError(res, 400, "invalid_request")
        } catch (e) {
          throw new Error(`${name}: ${(e as Error).message}`)
        }
      }
      const me = yield* human.client.profiles.me()
      expect(me.user).toMatchObject({ display_name: "Before", identity: {}, svc_gems: 0, user_type: "human" })
      expect((yield* human.client.profiles.getProfile()).webhook_url).toBeNull()
    }))

  it.effect("a body over 1 MiB is a JSON 413", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const big = json({ bio: "x".repeat(1024 * 1024 + 10) })
      const res = yield* rawRequest("PATCH", "/api/agent/profile", { body: big, key: human.api_key })
      expectError(res, 413, "payload_too_large")
      expect((yield* human.client.profiles.me()).user.bio).toBe("")
    }))

  it.effect("deeply nested JSON is a 400, public or keyed, POST or PATCH; nesting inside strings is only text", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("deep"), "Before")
      const deep = (n: number) => "[".repeat(n) + "]".repeat(n)
      const deepObject = (n: number) => "{\"a\":".repeat(n) + "1" + "}".repeat(n)
      const bodies: Array<[string, string]> = [
        ["3,000 nested arrays", deep(3_000)],
        ["3,000 nested objects", deepObject(3_000)],
        ["a deep value inside a field", `{"handle":"${uniqueHandle()}","display_name":"x","bio":${deep(3_000)}}`],
        ["65 levels", deep(65)]
      ]
      const routes: Array<["POST" | "PATCH", string, string | undefined]> = [
        ["POST", "/api/accounts", undefined],
        ["POST", "/api/account/agents", human.api_key],
        ["PATCH", "/api/agent/profile", human.api_key]
      ]
      for (const [method, path, key] of routes) {
        for (const [name, body] of bodies) {
          const res = yield* rawRequest(method, path, {
            body,
            ...(key ? { key, headers: { "idempotency-key": uniqueHandle("k") } } : {})
          })
          try {
            const err = expectError(res, 400, "invalid_request")
            expect(err.message).toMatch(/nested/)
          } catch (e) {
            throw new Error(`${method} ${path}, ${name}: ${(e as Error).message}`)
          }
        }
      }
      expect((yield* human.client.profiles.me()).user.display_name).toBe("Before")

      // brackets inside strings are text, and 64 levels are still parsed (and refused by the schema, not the cap)
      const bio = "[{".repeat(3_000)
      const ok = yield* rawRequest("PATCH", "/api/agent/profile", {
        body: json({ bio: bio.slice(0, 2_000) }),
        key: human.api_key
      })
      expect(ok.status).toBe(200)
      const shallow = yield* rawRequest("PATCH", "/api/agent/profile", { body: deep(64), key: human.api_key })
      expect(expectError(shallow, 400, "invalid_request").message).not.toMatch(/nested/)
    }))

  it.effect("unknown /api paths and methods are JSON 404s", () =>
    Effect.gen(function*() {
      expectError(yield* rawRequest("GET", "/api/nope"), 404, "not_found")
      expectError(yield* rawRequest("DELETE", "/api/agent/profile"), 404, "not_found")
    }))

  it.effect("an Idempotency-Key over 255 characters is a 400 and creates nothing", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const handle = uniqueHandle()
      const res = yield* rawRequest("POST", "/api/account/agents", {
        body: json({ handle, display_name: "x" }),
        headers: { "idempotency-key": "k".repeat(256) },
        key: human.api_key
      })
      expectError(res, 400, "invalid_request")
      const search = yield* human.client.profiles.searchUsers({ urlParams: { q: handle } })
      expect(search.users).toEqual([])
    }))

  it.effect("creating an agent with bad input stores nothing", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const res = yield* rawRequest("POST", "/api/account/agents", {
        body: json({ handle: agent.agent.handle.toUpperCase(), display_name: "dup" }),
        key: human.api_key
      })
      expectError(res, 409, "conflict")
      expect((yield* agent.client.profiles.me()).user.display_name).toBe("Test Agent")
    }))
})

describeApp({ RATE_LIMIT_PER_MINUTE: "5" })("rate limiting", (it) => {
  it.effect("past the per-key bucket: 429 with Retry-After and RateLimit headers; other keys unaffected", () =>
    Effect.gen(function*() {
      const a = yield* signUp()
      const b = yield* signUp()
      const statuses: Array<number> = []
      let last = yield* rawRequest("GET", "/api/agent/me", { key: a.api_key })
      expect(last.headers["ratelimit-limit"]).toBe("5")
      statuses.push(last.status)
      for (let i = 0; i < 6; i++) {
        last = yield* rawRequest("GET", "/api/agent/me", { key: a.api_key })
        statuses.push(last.status)
      }
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200])
      expectError(last, 429, "rate_limited")
      expect(Number(last.headers["retry-after"])).toBeGreaterThanOrEqual(1)
      expect(last.headers["ratelimit-remaining"]).toBe("0")
      expect(Number(last.headers["ratelimit-reset"])).toBeGreaterThan(0)
      expect((yield* rawRequest("GET", "/api/agent/me", { key: b.api_key })).status).toBe(200)
    }))
})
