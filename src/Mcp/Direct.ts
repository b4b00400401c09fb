import type { McpServer } from "@effect/ai"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Auth } from "@shoal/domain"
import { Cause, Effect } from "effect"
import type { McpCallers } from "./Callers.js"
import { errorAnswer, INTERNAL_ERROR } from "./JsonRpc.js"

export interface DirectCall {
  readonly id: string | number
  readonly name: string
  readonly arguments: Record<string, unknown>
}

/** One JSON-RPC `tools/call` of a known tool, alone in its body; anything else (batches, other methods) is not. */
export const parseDirectCall = (text: string, known: (name: string) => boolean): DirectCall | undefined => {
  let message: any
  try {
    message = JSON.parse(text)
  } catch {
    return undefined
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined
  if (message.jsonrpc !== "2.0" || message.method !== "tools/call") return undefined
  const { id, params } = message
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined
  if (params === null || typeof params !== "object" || typeof params.name !== "string" || !known(params.name)) {
    return undefined
  }
  const args = params.arguments
  if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) return undefined
  // `arguments` is optional in MCP: absent, the tool gets no arguments (its schema then says what is missing)
  return { id, name: params.name, arguments: args ?? {} }
}

/**
 * The answer to a direct call: the registered tool's own handler through `McpServer.callTool` (the same decoding,
 * handler and `CallToolResult` as the RPC server's), run in the HTTP request's fiber as the key's principal, and
 * written as the JSON-RPC response the RPC server would write. A `CallToolResult` is plain JSON (text content), so
 * its schema encoding is the identity and is skipped.
 */
export const answerDirectBody = (
  server: McpServer.McpServer["Type"],
  callers: McpCallers,
  principal: Auth.Principal,
  call: DirectCall
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

/** `answerDirectBody` as the JSON response. */
export const answerDirect = (
  server: McpServer.McpServer["Type"],
  callers: McpCallers,
  principal: Auth.Principal,
  call: DirectCall
) => Effect.map(answerDirectBody(server, callers, principal, call), (body) => HttpServerResponse.unsafeJson(body))
