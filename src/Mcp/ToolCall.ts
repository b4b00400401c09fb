import type { McpServer } from "@effect/ai"
import type { Auth } from "@shoal/domain"
import { Cause, Effect } from "effect"
import type { McpCallers } from "./Callers.js"
import { mcpError } from "./JsonRpc.js"

export interface ToolCall {
  readonly id: string | number
  readonly name: string
  readonly arguments: Record<string, unknown>
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
    Effect.catchAllCause((cause) => Effect.succeed(mcpError(call.id, Cause.squash(cause))))
  )
