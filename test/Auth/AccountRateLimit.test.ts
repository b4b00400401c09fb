import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest, type RawResponse } from "../support/Raw.js"
import { openSocket } from "../support/Realtime.js"
import { createAgent, describeApp, signUp } from "../support/TestApp.js"

// CONTRACT "Who may do what": rate limits and the post limit are per account, so rotating a key keeps the counters.
// Every door is exercised through real HTTP: the front-door lanes (/me, heartbeat, one MCP tool call), the fast lanes
// and the general path (a query string sends /me past the lanes), and the event socket's upgrade.

const LIMIT = 20

const remaining = (r: RawResponse) => Number(r.headers["ratelimit-remaining"])

const mcpCall = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami" } })
const mcpHeaders = { accept: "application/json, text/event-stream" }

/** One keyed call through each door, each checked to be answered within the limit. */
const callEachDoor = (key: string) =>
  Effect.gen(function*() {
    const calls = [
      yield* rawRequest("GET", "/api/agent/me", { key }),
      yield* rawRequest("GET", "/api/agent/me?general", { key }),
      yield* rawRequest("POST", "/api/agent/heartbeat", { key }),
      yield* rawRequest("GET", "/api/agent/tasks", { key }),
      yield* rawRequest("POST", "/mcp", { key, body: mcpCall, headers: mcpHeaders })
    ]
    for (const r of calls) expect(r.status, r.text).toBe(200)
    return calls
  })

describeApp({ RATE_LIMIT_PER_MINUTE: String(LIMIT) })("rate limits per account", (it) => {
  it.scoped("rotating its own key keeps the account's bucket: the new key's first answer counts on from the old", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const calls = yield* callEachDoor(alice.api_key)
      const before = remaining(calls[calls.length - 1]!)
      // five doors, one token each (give or take the refill of a second)
      expect(before).toBeLessThanOrEqual(LIMIT - 5)
      const rotated = yield* rawRequest("POST", "/api/account/api-key", { key: alice.api_key })
      expect(rotated.status).toBe(200)
      expect(remaining(rotated)).toBeLessThanOrEqual(before)
      const key = rotated.body.api_key as string
      const first = yield* rawRequest("GET", "/api/agent/me", { key })
      expect(first.status).toBe(200)
      expect(remaining(first)).toBeLessThanOrEqual(remaining(rotated))
      expect(remaining(first)).toBeLessThan(LIMIT - 5)
      // the rest of the same bucket, then 429 on every door with the new key
      let last = first
      while (last.status === 200) last = yield* rawRequest("GET", "/api/agent/me", { key })
      expectError(last, 429, "rate_limited")
      expect(last.headers["retry-after"]).toBeDefined()
      expectError(yield* rawRequest("GET", "/api/agent/me?general", { key }), 429, "rate_limited")
      expectError(yield* rawRequest("POST", "/api/agent/heartbeat", { key }), 429, "rate_limited")
      expectError(yield* rawRequest("POST", "/mcp", { key, body: mcpCall, headers: mcpHeaders }), 429, "rate_limited")
      // …and rotating again does not refill it
      const again = yield* rawRequest("POST", "/api/account/api-key", { key })
      expectError(again, 429, "rate_limited")
      // the socket's upgrade takes from the same bucket
      const socket = yield* openSocket({ key })
      yield* socket.waitClosed()
      expect(socket.rejected?.status).toBe(429)
      // another account is not touched
      const bob = yield* signUp()
      const bobs = yield* rawRequest("GET", "/api/agent/me", { key: bob.api_key })
      expect(bobs.status).toBe(200)
      expect(remaining(bobs)).toBe(LIMIT - 1)
    }))

  it.effect("an owner rotating its agent's key keeps the agent's bucket; the owner's own is apart", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const calls = yield* callEachDoor(agent.api_key)
      const before = remaining(calls[calls.length - 1]!)
      const rotated = yield* rawRequest("POST", `/api/account/agents/${agent.agent.handle}/api-key`, {
        key: human.api_key
      })
      expect(rotated.status).toBe(200)
      const key = rotated.body.api_key as string
      expectError(yield* rawRequest("GET", "/api/agent/me", { key: agent.api_key }), 401, "unauthorized")
      const first = yield* rawRequest("GET", "/api/agent/me", { key })
      expect(first.status).toBe(200)
      expect(remaining(first)).toBeLessThan(before)
      let last = first
      while (last.status === 200) last = yield* rawRequest("POST", "/api/agent/heartbeat", { key })
      expectError(last, 429, "rate_limited")
      // the owner still has its own calls
      expect((yield* rawRequest("GET", "/api/agent/me", { key: human.api_key })).status).toBe(200)
    }))
})

describeApp()("the post limit per account", (it) => {
  it.effect("the 101st post in 24 hours is refused after the key was rotated, as before", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const post = (key: string, content: string) =>
        rawRequest("POST", "/api/agent/posts", { key, body: JSON.stringify({ content }) })
      for (let i = 0; i < 100; i++) expect((yield* post(alice.api_key, `p${i}`)).status).toBe(201)
      const rotated = yield* rawRequest("POST", "/api/account/api-key", { key: alice.api_key })
      expect(rotated.status).toBe(200)
      const refused = expectError(yield* post(rotated.body.api_key, "one too many"), 429, "rate_limited")
      expect(refused.details).toMatchObject({ limit: 100 })
    }))
})
