import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"
import { call, mcp, TOOLS } from "./support.js"

describeApp()("mcp", (it) => {
  it.scoped("POST and GET /mcp without a key are 401 JSON, as REST", () =>
    Effect.gen(function*() {
      expectError(
        yield* rawRequest("POST", "/mcp", { body: "{}", headers: { "content-type": "application/json" } }),
        401,
        "unauthorized"
      )
      expectError(yield* rawRequest("GET", "/mcp"), 401, "unauthorized")
      expectError(
        yield* rawRequest("POST", "/mcp", {
          key: "sk_nope",
          body: "{}",
          headers: { "content-type": "application/json" }
        }),
        401,
        "unauthorized"
      )
    }))

  it.scoped("lists every tool, each described and with an input schema", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort())
      for (const t of tools) {
        expect(t.description?.length ?? 0).toBeGreaterThan(20)
        expect(t.inputSchema.type).toBe("object")
      }
      const send = tools.find((t) => t.name === "send_message")!
      expect(Object.keys(send.inputSchema.properties ?? {}).sort()).toEqual([
        "content",
        "idempotency_key",
        "recipient_handle"
      ])
      // a query's integers are JSON integers for the model, as in /openapi.json
      const mine = tools.find((t) => t.name === "my_tasks")!
      expect(mine.inputSchema.properties?.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 })
    }))

  it.scoped("tools announce what they do: reads are read-only and never destructive, Gems transfers are destructive", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const { tools } = yield* Effect.promise(() => client.listTools())
      const hints = (name: string) => tools.find((t) => t.name === name)!.annotations
      for (const name of ["whoami", "feed", "gems_balance", "gems_transactions", "get_task", "list_gigs"]) {
        expect(hints(name), name).toMatchObject({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false
        })
      }
      expect(hints("gems_transfer")).toMatchObject({ readOnlyHint: false, destructiveHint: true })
      expect(hints("post")).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false })
      expect(hints("follow")).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })
      // every tool says all four: a host never falls back to MCP's defaults (destructive, open-world)
      for (const t of tools) {
        expect(Object.keys(t.annotations ?? {}), t.name).toEqual(
          expect.arrayContaining(["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"])
        )
      }
    }))

  it.scoped("a lone tool call is answered as the RPC server answers it inside a batch", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const post = (body: unknown) =>
        rawRequest("POST", "/mcp", {
          key: agent.api_key,
          body: JSON.stringify(body),
          headers: { accept: "application/json, text/event-stream" }
        })
      for (
        const [id, params] of [
          [7, { name: "gems_balance", arguments: {} }], // (whoami carries the heartbeat time)
          [9, { name: "get_task", arguments: { task_id: "not-a-uuid" } }],
          [8, { name: "my_tasks", arguments: { limit: 0 } }],
          [10, { name: "gems_balance" }], // `arguments` is optional
          [null, { name: "gems_balance" }] // through the RPC server (its codec takes only numeric ids)
        ] as const
      ) {
        const message = { jsonrpc: "2.0", id, method: "tools/call", params }
        const single = yield* post(message)
        const batch = yield* post([message])
        expect(single.status).toBe(200)
        expect(single.headers["content-type"]).toContain("application/json")
        expect(single.body, JSON.stringify(batch.body)).toEqual(batch.body[0])
      }
      // JSON-RPC ids may be strings (the RPC server's codec turns them into BigInts and fails on "call-1")
      const named = yield* post({
        jsonrpc: "2.0",
        id: "call-1",
        method: "tools/call",
        params: { name: "gems_balance" }
      })
      expect(named.body).toMatchObject({ jsonrpc: "2.0", id: "call-1", result: { isError: false } })
    }))

  it.scoped("a bad argument is a tool error in words; nothing is sent", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const r = yield* call(client, "send_message", { recipient_handle: 42 })
      expect(r.isError).toBe(true)
      // the same formatter as REST's 400: the field and the fix, never a schema's name
      expect(r.json.error).toMatchObject({ code: "invalid_request", details: { field: "recipient_handle" } })
      expect(r.json.error.message).toMatch(/^recipient_handle must be a string/)
      const empty = yield* call(client, "send_message", { recipient_handle: "nobody_here_zz", content: "hi" })
      expect(empty.isError).toBe(true)
      expect(empty.json.error.code).toBe("not_found")
      expect(empty.json.error.message.length).toBeGreaterThan(5)
      const limit = yield* call(client, "my_tasks", { limit: 0 })
      expect(limit.isError).toBe(true)
      expect(limit.text).toContain("limit is an integer from 1 to 1000")
      expect((yield* agent.client.messages.listMessages({ urlParams: {} })).messages).toEqual([])
    }))

  it.scoped("another owner's task is refused exactly as over REST", () =>
    Effect.gen(function*() {
      const other = yield* humanWithAgent
      const project = yield* newProject(other.human.client)
      const task = (yield* other.human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "Private" },
        headers: {}
      })).task
      const { agent } = yield* humanWithAgent
      const rest = yield* rawRequest("GET", `/api/agent/tasks/${task.id}`, { key: agent.api_key })
      const client = yield* mcp(agent.api_key)
      const r = yield* call(client, "get_task", { task_id: task.id })
      expect(r.isError).toBe(true)
      expect(r.json).toEqual(rest.body)
      const patched = yield* call(client, "update_task", { task_id: task.id, status: "completed" })
      expect(patched.isError).toBe(true)
      expect(patched.json.error.code).toBe(rest.body.error.code)
      for (
        const [name, args, path, body] of [
          ["complete_task", {}, "complete", {}],
          ["comment_on_task", { content: "mine now" }, "comment", { content: "mine now" }],
          ["add_checklist_item", { text: "step" }, "checklist", { text: "step" }]
        ] as const
      ) {
        const viaRest = yield* rawRequest("POST", `/api/agent/tasks/${task.id}/${path}`, {
          key: agent.api_key,
          body: JSON.stringify(body)
        })
        const viaMcp = yield* call(client, name, { task_id: task.id, ...args })
        expect(viaMcp.isError, name).toBe(true)
        expect(viaMcp.json, name).toEqual(viaRest.body)
      }
      const detail = yield* other.human.client.tasks.getTask({ path: { task_id: task.id } })
      expect(detail.task).toMatchObject({ status: "pending", comments: [], checklist: [] })
    }))
})
