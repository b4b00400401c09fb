import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "./support/Raw.js"
import { client, createAgent, describeApp, signUp, uniqueHandle } from "./support/TestApp.js"

describeApp()("accounts and keys", (it) => {
  it.effect("sign-up → create agent → agent key works → rotate → old key is refused with 401", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("Alice"))
      expect(human.status).toBe("success")
      expect(human.user.user_type).toBe("human")
      expect(human.user.handle).toMatch(/^alice/)
      expect(human.api_key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/)

      const agent = yield* createAgent(human.api_key)
      expect(agent.agent.user_type).toBe("agent")
      expect(agent.agent.owner_id).toBe(human.user.id)
      const me = yield* agent.client.profiles.me()
      expect(me.user.id).toBe(agent.agent.id)

      // the owner rotates the agent's key: the old one stops at once
      const rotated = yield* human.client.accounts.rotateAgentKey({ path: { handle: agent.agent.handle } })
      expect(rotated.api_key).not.toBe(agent.api_key)
      const refused = yield* Effect.flip(agent.client.profiles.me())
      expect(refused._tag).toBe("Unauthorized")
      const fresh = yield* client(rotated.api_key, "x-api-key")
      expect((yield* fresh.profiles.me()).user.id).toBe(agent.agent.id)

      // an account rotates its own key
      const own = yield* fresh.accounts.rotateKey()
      expect((yield* Effect.flip(fresh.profiles.me()))._tag).toBe("Unauthorized")
      expect((yield* (yield* client(own.api_key)).profiles.me()).user.id).toBe(agent.agent.id)
    }))

  it.effect("both Bearer and X-API-Key are accepted; a missing or unknown key is a JSON 401 with WWW-Authenticate", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const viaHeader = yield* rawRequest("GET", "/api/agent/me", { headers: { "x-api-key": human.api_key } })
      expect(viaHeader.status).toBe(200)
      const viaBearer = yield* rawRequest("GET", "/api/agent/me", { key: human.api_key })
      expect(viaBearer.body.user.id).toBe(human.user.id)
      const none = yield* rawRequest("GET", "/api/agent/me")
      expectError(none, 401, "unauthorized")
      expect(none.headers["www-authenticate"]).toBe("Bearer")
      expectError(yield* rawRequest("GET", "/api/agent/me", { key: "sk_nope" }), 401, "unauthorized")
      expectError(
        yield* rawRequest("GET", "/api/agent/me", { headers: { authorization: `Basic ${human.api_key}` } }),
        401,
        "unauthorized"
      )
    }))

  it.effect("concurrent rotations of an agent's key: one new key, the rest 409; every key a 200 hands out works", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const results = yield* Effect.all(
        Array.from(
          { length: 6 },
          () => rawRequest("POST", `/api/account/agents/${agent.agent.handle}/api-key`, { key: human.api_key })
        ),
        { concurrency: "unbounded" }
      )
      const ok = results.filter((r) => r.status === 200)
      expect(ok.length).toBeGreaterThanOrEqual(1)
      for (const r of results.filter((r) => r.status !== 200)) {
        expect(expectError(r, 409, "conflict").message).toMatch(/another rotation/)
      }
      for (const r of ok) {
        const me = yield* rawRequest("GET", "/api/agent/me", { key: r.body.api_key })
        expect(me.status, "a key answered with 200 must work").toBe(200)
      }
      expect(ok.length).toBe(1)
      expect((yield* Effect.flip(agent.client.profiles.me()))._tag).toBe("Unauthorized")
      // a retry moments later belongs to the same burst: 409 too, the winner's key still works
      const late = yield* rawRequest("POST", `/api/account/agents/${agent.agent.handle}/api-key`, {
        key: human.api_key
      })
      expect(expectError(late, 409, "conflict").message).toMatch(/retry in 5 seconds/)
      expect((yield* rawRequest("GET", "/api/agent/me", { key: ok[0]!.body.api_key })).status).toBe(200)
      // once it has settled, a rotation is an ordinary one
      yield* Effect.sleep("5500 millis")
      const again = yield* human.client.accounts.rotateAgentKey({ path: { handle: agent.agent.handle } })
      expect((yield* rawRequest("GET", "/api/agent/me", { key: again.api_key })).status).toBe(200)
      expect((yield* rawRequest("GET", "/api/agent/me", { key: ok[0]!.body.api_key })).status).toBe(401)
    }))

  it.effect("concurrent rotations of one's own key: one new key, the rest refused; every key a 200 hands out works", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const results = yield* Effect.all(
        Array.from({ length: 6 }, () => rawRequest("POST", "/api/account/api-key", { key: agent.api_key })),
        { concurrency: "unbounded" }
      )
      const ok = results.filter((r) => r.status === 200)
      expect(ok.length).toBe(1)
      for (const r of results.filter((r) => r.status !== 200)) {
        // a 409 while the winner commits; a 401 once the old key is revoked (it is, like any revoked key)
        if (r.status === 401) expectError(r, 401, "unauthorized")
        else expect(expectError(r, 409, "conflict").message).toMatch(/another rotation/)
      }
      const me = yield* rawRequest("GET", "/api/agent/me", { key: ok[0]!.body.api_key })
      expect(me.status).toBe(200)
      expect(me.body.user.id).toBe(agent.agent.id)
    }))

  it.effect("an agent calling a human-only call gets 403", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const err = yield* Effect.flip(
        agent.client.accounts.createAgent({ payload: { handle: uniqueHandle(), display_name: "x" }, headers: {} })
      )
      expect(err._tag).toBe("Forbidden")
      const rotate = yield* rawRequest("POST", `/api/account/agents/${agent.agent.handle}/api-key`, {
        key: agent.api_key
      })
      expectError(rotate, 403, "forbidden")
    }))

  it.effect("only the owner rotates an agent's key; an unknown handle is 404", () =>
    Effect.gen(function*() {
      const owner = yield* signUp()
      const other = yield* signUp()
      const agent = yield* createAgent(owner.api_key)
      const err = yield* Effect.flip(other.client.accounts.rotateAgentKey({ path: { handle: agent.agent.handle } }))
      expect(err._tag).toBe("Forbidden")
      // the agent's key still works: nothing was rotated
      expect((yield* agent.client.profiles.me()).user.id).toBe(agent.agent.id)
      const missing = yield* Effect.flip(owner.client.accounts.rotateAgentKey({ path: { handle: uniqueHandle() } }))
      expect(missing._tag).toBe("NotFound")
    }))

  it.effect("handles are unique across humans and agents, case-insensitively (409)", () =>
    Effect.gen(function*() {
      const handle = uniqueHandle("dup")
      const human = yield* signUp(handle)
      const again = yield* rawRequest("POST", "/api/accounts", {
        body: JSON.stringify({ handle: handle.toUpperCase(), display_name: "Other" })
      })
      expectError(again, 409, "conflict")
      const asAgent = yield* Effect.flip(
        human.client.accounts.createAgent({ payload: { handle, display_name: "x" }, headers: {} })
      )
      expect(asAgent._tag).toBe("Conflict")
    }))

  it.effect("Idempotency-Key: a retried agent creation replays the first response and creates one agent", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const handle = uniqueHandle("idem")
      const body = JSON.stringify({ handle, display_name: "Once" })
      const headers = { "idempotency-key": `k-${handle}` }
      const first = yield* rawRequest("POST", "/api/account/agents", { body, headers, key: human.api_key })
      expect(first.status).toBe(201)
      const second = yield* rawRequest("POST", "/api/account/agents", { body, headers, key: human.api_key })
      expect(second.status).toBe(201)
      expect(second.headers["idempotent-replayed"]).toBe("true")
      // CONTRACT: only a hash of a key is stored, anywhere
      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<{ response: string }>`SELECT response::text AS response FROM idempotency_keys
        WHERE user_id = ${human.user.id}`
      expect(stored).toHaveLength(1)
      expect(stored[0]!.response).not.toContain("sk_")
      expect(stored[0]!.response).toContain(first.body.agent.id)
      // the replay is the same agent, but the key was shown once and is not kept: a marker and a notice instead
      expect(second.body.agent).toEqual(first.body.agent)
      expect(second.body.api_key).toBe("redacted")
      expect(second.body.api_key_notice).toMatch(/shown once/)
      expect(first.body.api_key_notice).toBeUndefined()
      // the first answer's key is the one that works: no second agent, no second key
      const agent = yield* client(first.body.api_key)
      expect((yield* agent.profiles.me()).user.id).toBe(first.body.agent.id)
      // the typed client decodes the replay too
      const typed = yield* human.client.accounts.createAgent({
        payload: { handle, display_name: "Once" },
        headers: { "idempotency-key": `k-${handle}` }
      })
      expect(typed.api_key).toBe("redacted")

      const reused = yield* rawRequest("POST", "/api/account/agents", {
        body: JSON.stringify({ handle: uniqueHandle(), display_name: "Other" }),
        headers,
        key: human.api_key
      })
      expectError(reused, 409, "conflict")

      // keys are scoped to the caller: another human may use the same key string
      const other = yield* signUp()
      const theirs = yield* rawRequest("POST", "/api/account/agents", {
        body: JSON.stringify({ handle: uniqueHandle(), display_name: "Theirs" }),
        headers,
        key: other.api_key
      })
      expect(theirs.status).toBe(201)
      expect(theirs.headers["idempotent-replayed"]).toBeUndefined()
    }))

  it.effect("concurrent retries with one Idempotency-Key create one agent: the rest replay or get 409", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const handle = uniqueHandle("race")
      const body = JSON.stringify({ handle, display_name: "Raced" })
      const headers = { "idempotency-key": `race-${handle}` }
      const results = yield* Effect.all(
        Array.from(
          { length: 8 },
          () => rawRequest("POST", "/api/account/agents", { body, headers, key: human.api_key })
        ),
        { concurrency: "unbounded" }
      )
      const created = results.filter((r) => r.status === 201)
      expect(created.length).toBeGreaterThanOrEqual(1)
      expect(new Set(created.map((r) => r.body.agent.id)).size).toBe(1)
      for (const r of results.filter((r) => r.status !== 201)) expectError(r, 409, "conflict")
      const found = yield* human.client.profiles.searchUsers({ urlParams: { q: handle } })
      expect(found.users).toHaveLength(1)
    }))

  it.effect("a request that fails stores nothing under its Idempotency-Key", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const taken = yield* signUp()
      const headers = { "idempotency-key": uniqueHandle("fail") }
      const failed = yield* rawRequest("POST", "/api/account/agents", {
        body: JSON.stringify({ handle: taken.user.handle, display_name: "Taken" }),
        headers,
        key: human.api_key
      })
      expectError(failed, 409, "conflict")
      const handle = uniqueHandle()
      const retried = yield* rawRequest("POST", "/api/account/agents", {
        body: JSON.stringify({ handle, display_name: "Taken" }),
        headers,
        key: human.api_key
      })
      expect(retried.status).toBe(201)
      expect(retried.body.agent.handle).toBe(handle)
    }))
})

describeApp({ REGISTRATION: "closed" })("closed registration", (it) => {
  it.effect("public sign-up answers 403 when REGISTRATION=closed", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("POST", "/api/accounts", {
        body: JSON.stringify({ handle: uniqueHandle(), display_name: "Nope" })
      })
      expectError(res, 403, "forbidden")
    }))
})

describeApp({ SIGNUP_RATE_LIMIT: "3" })("sign-up rate limit", (it) => {
  it.effect("the 4th sign-up from one address within the hour is a 429 with Retry-After and RateLimit-*; it creates nothing", () =>
    Effect.gen(function*() {
      const signUpAs = (handle: string) =>
        rawRequest("POST", "/api/accounts", { body: JSON.stringify({ handle, display_name: "Many" }) })
      for (const remaining of [2, 1, 0]) {
        const ok = yield* signUpAs(uniqueHandle("many"))
        expect(ok.status).toBe(201)
        expect(ok.headers["ratelimit-limit"]).toBe("3")
        expect(ok.headers["ratelimit-remaining"]).toBe(String(remaining))
      }
      const handle = uniqueHandle("many")
      const refused = yield* signUpAs(handle)
      expectError(refused, 429, "rate_limited")
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
      expect(refused.headers["ratelimit-limit"]).toBe("3")
      expect(refused.headers["ratelimit-remaining"]).toBe("0")
      expect(Number(refused.headers["ratelimit-reset"])).toBeGreaterThan(0)
      // nothing was created: the handle is still free
      expectError(yield* rawRequest("GET", `/api/identity/${handle}`), 404, "not_found")
      // X-Forwarded-For is the client's say-so unless TRUST_PROXY: it changes nothing
      const forged = yield* rawRequest("POST", "/api/accounts", {
        body: JSON.stringify({ handle: uniqueHandle("many"), display_name: "Many" }),
        headers: { "x-forwarded-for": "203.0.113.7" }
      })
      expectError(forged, 429, "rate_limited")
    }))
})

describeApp({ SIGNUP_RATE_LIMIT: "1", TRUST_PROXY: "true" })("sign-up rate limit behind a proxy", (it) => {
  it.effect("with TRUST_PROXY the address is the last X-Forwarded-For entry, the one the proxy added", () =>
    Effect.gen(function*() {
      const from = (forwardedFor: string) =>
        rawRequest("POST", "/api/accounts", {
          body: JSON.stringify({ handle: uniqueHandle("px"), display_name: "Proxied" }),
          headers: { "x-forwarded-for": forwardedFor }
        })
      expect((yield* from("198.51.100.1, 203.0.113.7")).status).toBe(201)
      expectError(yield* from("198.51.100.2, 203.0.113.7"), 429, "rate_limited")
      expect((yield* from("203.0.113.8")).status).toBe(201)
      // one IPv6 host, one /64
      expect((yield* from("2001:db8:1:2::1")).status).toBe(201)
      expectError(yield* from("2001:db8:1:2:ffff::9"), 429, "rate_limited")
    }))
})

describe("keys", () => {
  it("look like sk_ + 32 random bytes base64url and only their hash is stored", async () => {
    const { generateKey, hashKey } = await import("../src/Auth/Keys.js")
    const k = generateKey()
    expect(Buffer.from(k.slice(3), "base64url")).toHaveLength(32)
    expect(hashKey(k)).toMatch(/^[0-9a-f]{64}$/)
    expect(hashKey(k)).not.toContain(k.slice(3))
  })
})
