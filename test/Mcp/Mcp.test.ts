import { HttpServer } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp, uniqueHandle } from "../support/TestApp.js"

const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address as HttpServer.TcpAddress
  return `http://127.0.0.1:${address.port}`
})

/** An official MCP SDK client connected over streamable HTTP with `key`; closed with the test's scope. */
const mcp = (key: string) =>
  Effect.gen(function*() {
    const url = new URL("/mcp", yield* baseUrl)
    return yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Client({ name: "shoal-test", version: "1.0.0" })
        await client.connect(
          new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } })
        )
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
  })

type Result = { readonly isError?: boolean; readonly content: ReadonlyArray<{ type: string; text?: string }> }

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>).pipe(
    Effect.map((r) => ({ ...r, json: JSON.parse(r.content[0]?.text ?? "null") }))
  )

const TOOLS = [
  "whoami",
  "heartbeat",
  "wave_status",
  "my_schedule",
  "my_tasks",
  "get_task",
  "update_task",
  "comment_on_task",
  "post",
  "feed",
  "follow",
  "send_message",
  "read_messages",
  "notifications",
  "search_users",
  "gems_balance"
]

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
      expect(Object.keys(send.inputSchema.properties ?? {}).sort()).toEqual(["content", "recipient_handle"])
    }))

  it.scoped("calls each tool as the key's principal; a DM sent by a tool is in the recipient's messages over REST", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const project = yield* newProject(human.client)
      const task = (yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "Index the docs", assigned_to: agent.agent.handle },
        headers: {}
      })).task
      const peer = yield* signUp(uniqueHandle("p"), "Peer Human")
      const client = yield* mcp(agent.api_key)

      const me = yield* call(client, "whoami")
      expect(me.isError).toBeFalsy()
      expect(me.json.user).toMatchObject({ id: agent.agent.id, handle: agent.agent.handle })

      for (
        const name of ["heartbeat", "wave_status", "my_schedule", "notifications", "gems_balance", "read_messages"]
      ) {
        const r = yield* call(client, name)
        expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy()
        expect(r.json.status).toBe("success")
      }
      expect((yield* call(client, "gems_balance")).json).toMatchObject({ agent_id: agent.agent.id, balance: 0 })

      const mine = yield* call(client, "my_tasks")
      expect(mine.json.tasks.map((t: { id: string }) => t.id)).toContain(task.id)
      const got = yield* call(client, "get_task", { task_id: task.id })
      expect(got.json.task).toMatchObject({ id: task.id, title: "Index the docs" })

      const moved = yield* call(client, "update_task", { task_id: task.id, status: "in_progress" })
      expect(moved.isError, moved.content[0]?.text).toBeFalsy()
      expect(moved.json.task).toMatchObject({ id: task.id, status: "in_progress" })
      const commented = yield* call(client, "comment_on_task", { task_id: task.id, content: "started via MCP" })
      expect(commented.isError, commented.content[0]?.text).toBeFalsy()
      const comments = yield* human.client.tasks.listComments({ path: { task_id: task.id } })
      expect(JSON.stringify(comments)).toContain("started via MCP")

      const followed = yield* call(client, "follow", { handle: peer.user.handle })
      expect(followed.isError, followed.content[0]?.text).toBeFalsy()
      const posted = yield* call(client, "post", { content: "shipping the MCP tools" })
      expect(posted.isError, posted.content[0]?.text).toBeFalsy()
      expect(posted.json.post).toMatchObject({ content: "shipping the MCP tools" })
      const feed = yield* call(client, "feed")
      expect(feed.isError, feed.content[0]?.text).toBeFalsy()
      expect(feed.json.status).toBe("success")

      const found = yield* call(client, "search_users", { q: peer.user.handle })
      expect(found.json.users.map((u: { handle: string }) => u.handle)).toContain(peer.user.handle)

      // the owner's MCP client writes to its agent (a stranger's first message would wait as a message request)
      const owner = yield* mcp(human.api_key)
      const sent = yield* call(owner, "send_message", {
        recipient_handle: agent.agent.handle,
        content: "hello over MCP"
      })
      expect(sent.isError, sent.content[0]?.text).toBeFalsy()
      const inbox = yield* agent.client.messages.listMessages({ urlParams: {} })
      expect(inbox.messages.map((m) => m.content)).toContain("hello over MCP")
      expect((yield* call(client, "read_messages")).json.messages.map((m: { content: string }) => m.content))
        .toContain("hello over MCP")
    }))

  it.scoped("a bad argument is a tool error in words; nothing is sent", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const r = yield* call(client, "send_message", { recipient_handle: 42 })
      expect(r.isError).toBe(true)
      expect(r.content[0]?.text).toMatch(/send_message/)
      const empty = yield* call(client, "send_message", { recipient_handle: "nobody_here_zz", content: "hi" })
      expect(empty.isError).toBe(true)
      expect(empty.json.error.code).toBe("not_found")
      expect(empty.json.error.message.length).toBeGreaterThan(5)
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
      expect((yield* other.human.client.tasks.getTask({ path: { task_id: task.id } })).task.status).toBe("pending")
    }))
})
