import type { McpServer } from "@effect/ai"
import type { Auth } from "@shoal/domain"
import { Cause, Effect } from "effect"
import type { McpCallers } from "./Callers.js"
import { errorAnswer, INTERNAL_ERROR } from "./JsonRpc.js"

export interface ToolCall {
  readonly id: string | number
  readonly name: string
  readonly arguments: Record<string, unknown>
}

/**
 * One JSON-RPC `tools/call` message with a numeric or string id; anything else (other methods, notifications, a
 * malformed call) is not, and goes to the RPC server, which answers the protocol's other methods and its errors.
 */
export const parseToolCall = (message: unknown): ToolCall | undefined => {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined
  const m = message as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: any }
  if (m.jsonrpc !== "2.0" || m.method !== "tools/call") return undefined
  const { id, params } = m
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined
  if (params === null || typeof params !== "object" || typeof params.name !== "string") return undefined
  const args = params.arguments
  if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) return undefined
  // `arguments` is optional in MCP: absent, the tool gets no arguments (its schema then says what is missing)
  return { id: id as string | number, name: params.name, arguments: args ?? {} }
}

/**
 * How `tools/call` is answered, alone or in a batch: the registered tool's handler through `McpServer.callTool` (an
 * unknown tool is its InvalidParams), run in the HTTP request's fiber as the key's principal, written as a JSON-RPC
 * response. The RPC server, which needs a client, a mailbox and a fiber per request, serves the protocol's other
 * methods (initialize, tools/list, prompts, resources). A `CallToolResult` is plain JSON (text content), so its schema
 * encoding is the identity and is skipped.
 */
export const answerToolCall = (
  server: McpServer.McpServer["Type"],
  callers: McpCallers,
  principal: Auth.Principal,
  call: ToolCall
): Effect.Effect<unknown> =>
  callers.as(principal, server.callTool({ name: call.name, arguments: call.arguments })).pipe(
    Effect.map((result) => ({ jsonrpc: "2.0", id: call.id, result })),
    Effect.catchAllCause((cause) => {
      const e = Cause.squash(cause) as { readonly code?: unknown; readonly message?: unknown }
      // an MCP error keeps its code and words; anything else is an internal error whose details stay in the log
      const mcp = Number.isSafeInteger(e?.code) && e.code !== 0 && typeof e?.message === "string"
      return Effect.succeed(
        mcp
          ? errorAnswer(call.id, e.code as number, e.message as string)
          : errorAnswer(call.id, INTERNAL_ERROR, "internal error")
      )
    })
  )
