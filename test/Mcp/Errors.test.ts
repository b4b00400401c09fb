import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"
import { call, mcp } from "./support.js"

/** The contract's error envelope, and nothing of Effect's own (`_tag`, `module`, a schema's dump). */
const expectEnvelope = (r: { readonly isError?: boolean; readonly json: any; readonly text: string }, code: string) => {
  expect(r.isError, r.text).toBe(true)
  expect(Object.keys(r.json).sort()).toEqual(["error", "status"])
  expect(r.json.status).toBe("error")
  expect(r.json.error.code, r.text).toBe(code)
  expect(typeof r.json.error.message).toBe("string")
  expect(r.text).not.toMatch(/_tag|"module"|readonly|MalformedOutput/)
  return r.json.error as { code: string; message: string; details?: any }
}

describeApp()("mcp errors", (it) => {
  it.scoped("every kind of tool failure is an isError result holding the contract's envelope", () =>
    Effect.gen(function*() {
      const owner = yield* humanWithAgent
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      // arguments: wrong type, missing, unknown enum value, a malformed id
      expect(expectEnvelope(yield* call(client, "send_message", { recipient_handle: 42 }), "invalid_request").details)
        .toMatchObject({ field: "recipient_handle" })
      expect(expectEnvelope(yield* call(client, "get_task", {}), "invalid_request").message).toBe("task_id is required")
      const task_id = "00000000-0000-4000-8000-000000000000"
      expect(
        expectEnvelope(yield* call(client, "update_task", { task_id, status: "bogus" }), "invalid_request").message
      )
        .toMatch(/^status must be one of pending/)
      expectEnvelope(yield* call(client, "get_task", { task_id: "not-a-uuid" }), "invalid_request")
      // domain failures: what REST answers, word for word
      const missing = yield* call(client, "get_task", { task_id })
      expectEnvelope(missing, "not_found")
      expect(missing.json).toEqual(
        (yield* rawRequest("GET", `/api/agent/tasks/${task_id}`, { key: agent.api_key })).body
      )
      const project = yield* newProject(owner.human.client)
      const task = (yield* owner.human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "Not yours" },
        headers: {}
      })).task
      const refused = yield* call(client, "comment_on_task", { task_id: task.id, content: "mine now" })
      const rest = yield* rawRequest("POST", `/api/agent/tasks/${task.id}/comment`, {
        key: agent.api_key,
        body: JSON.stringify({ content: "mine now" })
      })
      expect(rest.status).toBeGreaterThanOrEqual(403)
      expectEnvelope(refused, rest.body.error.code)
      expect(refused.json).toEqual(rest.body)
    }))

  it.scoped("a conflict (applying twice for a gig) is the envelope's 409 code", () =>
    Effect.gen(function*() {
      const owner = yield* humanWithAgent
      const { agent } = yield* humanWithAgent
      const project = yield* newProject(owner.human.client, { visibility: "public" })
      const gig = (yield* owner.human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "A gig", gem_bounty: 10 },
        headers: {}
      })).task
      const client = yield* mcp(agent.api_key)
      expect((yield* call(client, "apply_gig", { task_id: gig.id })).isError).toBe(false)
      const again = yield* call(client, "apply_gig", { task_id: gig.id })
      expect(expectEnvelope(again, "conflict").message).toBe("you have already applied for this gig")
    }))

  it.scoped("an unknown tool is JSON-RPC's Invalid params (-32602), as MCP says, without Effect's cause", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const error = yield* Effect.flip(Effect.tryPromise({
        try: () => client.callTool({ name: "no_such_tool", arguments: {} }),
        catch: (e) => e as Error
      }))
      expect(String(error)).toContain("-32602")
      const raw = yield* rawRequest("POST", "/mcp", {
        key: agent.api_key,
        body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "no_such_tool" } })
      })
      expect(raw.body).toEqual({
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32602, message: "Tool 'no_such_tool' not found" }
      })
    }))

  it.scoped("JSON-RPC errors are well-formed: parse error, invalid request, method not found, invalid params", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const post = (body: string) =>
        rawRequest("POST", "/mcp", {
          key: agent.api_key,
          body,
          headers: { accept: "application/json, text/event-stream" }
        })
      const parse = yield* post("{bad json")
      expect(parse.status).toBe(400)
      expect(parse.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
      expect(Object.keys(parse.body.error).sort()).toEqual(["code", "message"])
      for (const body of [{ jsonrpc: "2.0" }, { jsonrpc: "2.0", id: 3 }, 42, null, "x", { id: 1, method: "ping" }]) {
        const r = yield* post(JSON.stringify(body))
        expect(r.status, JSON.stringify(body)).toBe(400)
        expect(r.body, JSON.stringify(body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
      }
      for (const id of [4, "four"]) {
        const r = yield* post(JSON.stringify({ jsonrpc: "2.0", id, method: "nope/nope" }))
        expect(r.status).toBe(200)
        expect(r.body).toEqual({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found: nope/nope" } })
      }
      const params = yield* post(
        JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "gems_balance", arguments: 5 } })
      )
      expect(params.body).toEqual({
        jsonrpc: "2.0",
        id: 6,
        error: { code: -32602, message: "Invalid params: arguments must be an object" }
      })
      // in a batch, each entry as it would be answered alone
      const batch = yield* post(JSON.stringify([{ jsonrpc: "2.0", id: 7, method: "nope" }, 5]))
      expect(batch.body).toEqual([
        { jsonrpc: "2.0", id: 7, error: { code: -32601, message: "Method not found: nope" } },
        {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Invalid Request: a JSON-RPC message is an object" }
        }
      ])
      // a notification alone is accepted with nothing to say (202), as in a batch
      const note = yield* post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
      expect(note.status).toBe(202)
      expect(note.text).toBe("")
    }))
})
