import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent } from "../Projects/support.js"
import { expectError, laneShape, rawRequest, withoutClock as masked } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"
import { call, mcp } from "./support.js"

// MCP's fast lane (src/Mcp/Lane.ts) takes exactly `POST /mcp`; the same request with a query string goes down the
// general path (router, request checks, authentication, the route's direct call), so the two answers can be compared
// on one server: the same status, headers and body apart from the clock, and the call counted once either way.
const shape = laneShape

// the text content is the structured content as JSON, compared there
const withoutClock = (body: unknown) => masked(body, ["text"])

const toolCall = (id: number | string, name: string, args?: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, ...(args ? { arguments: args } : {}) } })

const headers = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }

describeApp({ RATE_LIMIT_PER_MINUTE: "14" })("MCP's fast lane answers as the general path does", (it) => {
  it.effect("a lone tool call: same status, headers and body down either path, counted once each", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const key = agent.api_key
      for (
        const body of [
          toolCall(1, "whoami", {}),
          toolCall("call-2", "gems_balance"), // no arguments, a string id
          toolCall(3, "get_task", { task_id: "not-a-uuid" }), // a tool error in words
          toolCall(4, "my_tasks", { limit: 0 }) // parameters the tool's schema refuses
        ]
      ) {
        const lane = yield* rawRequest("POST", "/mcp", { key, body, headers })
        const general = yield* rawRequest("POST", "/mcp?general", { key, body, headers })
        expect(lane.status, body).toBe(200)
        expect(shape(lane), body).toEqual(shape(general))
        expect(withoutClock(lane.body), body).toEqual(withoutClock(general.body))
        expect(lane.body.id).toBe(JSON.parse(body).id)
        // the call was counted once by either path: the bucket went down by one each time
        expect(Number(general.headers["ratelimit-remaining"])).toBe(Number(lane.headers["ratelimit-remaining"]) - 1)
      }
    }))

  it.effect("what the lane leaves to the general path keeps its answers; past the limit both answer 429 alike", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const key = agent.api_key
      const whoami = toolCall(1, "whoami", {})
      expectError(yield* rawRequest("POST", "/mcp", { body: whoami, headers }), 401, "unauthorized")
      expectError(yield* rawRequest("POST", "/mcp", { key: "sk_nope", body: whoami, headers }), 401, "unauthorized")
      // a NUL in the body, a body too deep, another media type: the request checks' answers
      expectError(
        yield* rawRequest("POST", "/mcp", { key, body: toolCall(1, "whoami", { x: "a\u0000b" }), headers }),
        400,
        "invalid_request"
      )
      expectError(
        yield* rawRequest("POST", "/mcp", { key, body: "[".repeat(100) + "]".repeat(100), headers }),
        400,
        "invalid_request"
      )
      expectError(
        yield* rawRequest("POST", "/mcp", { key, body: whoami, headers: { ...headers, "content-type": "text/plain" } }),
        415,
        "unsupported_media_type"
      )
      // a batch and an unknown tool go to the RPC server, which answers them
      const batch = yield* rawRequest("POST", "/mcp", { key, body: `[${whoami}]`, headers })
      expect(batch.status).toBe(200)
      expect(batch.body[0]).toMatchObject({ id: 1, result: { isError: false } })
      const unknown = yield* rawRequest("POST", "/mcp", { key, body: toolCall(5, "no_such_tool", {}), headers })
      expect(unknown.body).toMatchObject({ id: 5, error: {} })
      // 14 a minute, two taken above (the checks before authentication take none): use up the rest
      let last = yield* rawRequest("POST", "/mcp", { key, body: whoami, headers })
      while (last.status === 200) last = yield* rawRequest("POST", "/mcp", { key, body: whoami, headers })
      expectError(last, 429, "rate_limited")
      const general = yield* rawRequest("POST", "/mcp?general", { key, body: whoami, headers })
      expect(shape(last)).toEqual(shape(general))
      expect(last.headers["retry-after"]).toBeDefined()
    }))

  it.scoped("the official MCP SDK client calls tools through it", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const me = yield* call(client, "whoami")
      expect(me.isError).toBe(false)
      expect(me.json.user.id).toBe(agent.agent.id)
      const bad = yield* call(client, "get_task", { task_id: "not-a-uuid" })
      expect(bad.isError).toBe(true)
    }))
})
