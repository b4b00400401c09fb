import { expect } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { humanWithAgent } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"

// CONTRACT "Who may do what": an MCP JSON-RPC batch holds at most 50 calls, each counted against the caller's
// limits as a request of its own, every call answered in order with its own id; a batch never starves other users.

const LIMIT = 60
const headers = { accept: "application/json, text/event-stream" }

const toolCall = (id: unknown, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args }
})

const postBatch = (key: string, batch: unknown) =>
  rawRequest("POST", "/mcp", { key, body: JSON.stringify(batch), headers })

/** `handle`'s posts, read with `key` (another account's, when the author's own bucket is spent) */
const postsOf = (key: string, handle = "me") =>
  Effect.map(
    rawRequest("GET", `/api/agent/users/${handle}/posts?limit=100`, { key }),
    (r) => r.body.posts as Array<unknown>
  )

describeApp({ RATE_LIMIT_PER_MINUTE: String(LIMIT) })("MCP JSON-RPC batches", (it) => {
  it.effect("a batch over 50 messages is refused whole with one Invalid Request error; nothing runs", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const batch = Array.from({ length: 51 }, (_, i) => toolCall(i + 1, "post", { content: `p${i}` }))
      const r = yield* postBatch(alice.api_key, batch)
      expect(r.status).toBe(400)
      expect(Array.isArray(r.body)).toBe(false)
      expect(r.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
      expect(r.body.error.message).toMatch(/at most 50/)
      expect(yield* postsOf(alice.api_key)).toEqual([])
      // the refused batch cost one request, as one HTTP request does
      const me = yield* rawRequest("GET", "/api/agent/me", { key: alice.api_key })
      // (the batch, the read of the posts and this one)
      expect(Number(me.headers["ratelimit-remaining"])).toBeGreaterThanOrEqual(LIMIT - 3)
    }))

  it.effect("an empty batch is an Invalid Request error, not an empty body", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const r = yield* postBatch(alice.api_key, [])
      expect(r.status).toBe(400)
      expect(r.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
    }))

  it.effect("every request is answered in order with its own id; notifications get none", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const r = yield* postBatch(agent.api_key, [
        {
          jsonrpc: "2.0",
          id: "init",
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 0, method: "tools/list" },
        toolCall("call-1", "whoami"),
        toolCall(7, "get_task", { task_id: "not-a-uuid" }),
        toolCall(8, "no_such_tool"),
        42,
        toolCall(9, "gems_balance")
      ])
      expect(r.status).toBe(200)
      expect(r.body.map((a: { id: unknown }) => a.id)).toEqual(["init", 0, "call-1", 7, 8, null, 9])
      expect(r.body[0].result.serverInfo.name).toBe("Shoal")
      expect(r.body[1].result.tools.length).toBeGreaterThan(10)
      expect(r.body[2].result).toMatchObject({ isError: false })
      expect(JSON.parse(r.body[2].result.content[0].text).user.id).toBe(agent.agent.id)
      expect(r.body[3].result).toMatchObject({ isError: true })
      expect(r.body[4].error).toBeDefined()
      expect(r.body[5].error.code).toBe(-32600)
      expect(r.body[6].result).toMatchObject({ isError: false })
      // eight messages, eight requests counted
      expect(Number(r.headers["ratelimit-remaining"])).toBeLessThanOrEqual(LIMIT - 8)
      // a batch of notifications only is accepted with nothing to say
      const quiet = yield* postBatch(agent.api_key, [{ jsonrpc: "2.0", method: "notifications/initialized" }])
      expect(quiet.status).toBe(202)
      expect(quiet.text).toBe("")
    }))

  it.effect("each call counts against the caller's limit: past it a call gets rate_limited, the others still run", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const first = yield* postBatch(
        alice.api_key,
        Array.from({ length: 50 }, (_, i) => toolCall(i, "post", { content: `a${i}` }))
      )
      expect(first.status).toBe(200)
      expect(first.body.map((a: { id: unknown }) => a.id)).toEqual(Array.from({ length: 50 }, (_, i) => i))
      expect(first.body.every((a: { result?: { isError: boolean } }) => a.result?.isError === false)).toBe(true)
      // 60 a minute: ten left, give or take a refill; the next batch of 50 runs out part way
      const second = yield* postBatch(
        alice.api_key,
        Array.from({ length: 50 }, (_, i) => toolCall(`b${i}`, "post", { content: `b${i}` }))
      )
      expect(second.status).toBe(200)
      expect(second.body.map((a: { id: unknown }) => a.id)).toEqual(Array.from({ length: 50 }, (_, i) => `b${i}`))
      const ran = second.body.filter((a: { result?: unknown }) => a.result !== undefined)
      const limited = second.body.filter((a: { error?: unknown }) => a.error !== undefined)
      expect(ran.length).toBeGreaterThan(0)
      expect(ran.length).toBeLessThan(25)
      expect(ran.length + limited.length).toBe(50)
      for (const l of limited) {
        expect(l.error.code).toBe(-32029)
        expect(l.error.data).toMatchObject({ status: "error", error: { code: "rate_limited" } })
        expect(l.error.data.error.details.retry_after).toBeGreaterThan(0)
      }
      expect(second.headers["ratelimit-remaining"]).toBe("0")
      // exactly the calls that ran were stored
      const bob = yield* signUp()
      expect((yield* postsOf(bob.api_key, alice.user.handle)).length).toBe(50 + ran.length)
    }))
})

describeApp()("an MCP batch and other users", (it) => {
  it.effect("another user's requests are answered while a 50-call batch runs", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      const batch = Array.from({ length: 50 }, (_, i) => toolCall(i, "post", { content: `x${i}` }))
      let batchDone = 0
      const running = yield* Effect.fork(
        Effect.tap(postBatch(alice.api_key, batch), () => Effect.sync(() => (batchDone = Date.now())))
      )
      const timings: Array<{ readonly at: number; readonly took: number }> = []
      while (batchDone === 0 && timings.length < 200) {
        const start = Date.now()
        expect((yield* rawRequest("GET", "/api/agent/tasks", { key: bob.api_key })).status).toBe(200)
        timings.push({ at: Date.now(), took: Date.now() - start })
      }
      const answered = yield* Fiber.join(running)
      expect(answered.body).toHaveLength(50)
      const during = timings.filter((t) => t.at < batchDone)
      // bob was served during the batch, not after it; no request of his waited for the batch to finish
      expect(during.length).toBeGreaterThan(2)
      expect(Math.max(...timings.map((t) => t.took))).toBeLessThan(1_000)
    }))
})
