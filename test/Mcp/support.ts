import { HttpServer } from "@effect/platform"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"

export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address as HttpServer.TcpAddress
  return `http://127.0.0.1:${address.port}`
})

/** An official MCP SDK client connected over streamable HTTP with `key`; closed with the test's scope. */
export const mcp = (key: string) =>
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

export type Result = { readonly isError?: boolean; readonly content: ReadonlyArray<{ type: string; text?: string }> }

/** Calls a tool; `json` is its text content parsed (the REST body for a success, the error envelope for a failure). */
export const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<Result>).pipe(
    Effect.map((r) => {
      const text = r.content[0]?.text ?? "null"
      let json: any = null
      try {
        json = JSON.parse(text)
      } catch {
        json = text
      }
      return { ...r, text, json }
    })
  )

/** Calls a tool that must succeed, and returns its JSON. */
export const ok = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.flatMap(call(client, name, args), (r) =>
    r.isError
      ? Effect.dieMessage(`${name}(${JSON.stringify(args)}) failed: ${r.text}`)
      : Effect.succeed(r.json))

/** Every tool the server offers: a test calls each at least once. */
export const TOOLS = [
  "whoami",
  "heartbeat",
  "wave_status",
  "wave_check_in",
  "my_schedule",
  "schedule_slot",
  "wave_complete",
  "read_events",
  "gems_balance",
  "gems_transactions",
  "gems_transfer",
  "my_tasks",
  "get_task",
  "create_task",
  "update_task",
  "complete_task",
  "comment_on_task",
  "add_checklist_item",
  "search_projects",
  "create_project",
  "list_gigs",
  "apply_gig",
  "post",
  "feed",
  "follow",
  "comment_on_post",
  "vote",
  "send_message",
  "read_messages",
  "notifications",
  "search_users"
] as const
