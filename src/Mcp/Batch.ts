import type { McpServer } from "@effect/ai"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Auth } from "@shoal/domain"
import { Cause, Effect } from "effect"
import { KeyCheck } from "../Auth.js"
import { type Decision, noteDecision, rateLimited } from "../Auth/RateLimiter.js"
import type { McpCallers } from "./Callers.js"
import { checkRequest, errorAnswer, type Id, INTERNAL_ERROR, INVALID_REQUEST, mcpError, wellFormed } from "./JsonRpc.js"
import { asToolError } from "./Tool.js"

/** CONTRACT "Who may do what": at most this many messages in one JSON-RPC batch; a longer one is refused whole. */
export const MAX_BATCH_CALLS = 50

/** A call past the caller's rate limit (JSON-RPC's implementation-defined server-error range; 429 in its digits). */
export const RATE_LIMITED = -32029

const invalid = (message: string) => errorAnswer(null, INVALID_REQUEST, message)

/** What the whole batch gets when it is refused before any call runs: 400 (MCP's "cannot accept the input"). */
const refused = (message: string) => HttpServerResponse.unsafeJson(invalid(message), { status: 400 })

const limitedAnswer = (id: unknown, decision: Decision) => {
  const error = rateLimited(decision, "requests per minute")
  // `data`: the contract's error envelope, as a REST call past the limit would answer it
  return { jsonrpc: "2.0", id, error: { code: RATE_LIMITED, message: error.message, data: asToolError(error) } }
}

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

export interface BatchPaths {
  /** one `tools/call`, answered through the MCP server's tool handler (answerToolCall) */
  readonly toolCall: (call: ToolCall) => Effect.Effect<unknown>
  /** one message (with a numeric id, or none) through the RPC server; its JSON-RPC answer, if any */
  readonly rpc: (text: string) => Effect.Effect<unknown>
}

/**
 * A JSON-RPC batch on `POST /mcp` (CONTRACT "Who may do what"): at most `MAX_BATCH_CALLS` messages, each counted
 * against the caller's bucket as a request of its own (the HTTP request's token pays for the first), run one after
 * another with a yield between, so one batch is never thousands of calls at once against other users. Every request
 * is answered in order with its own id (a call past the limit with the contract's `rate_limited` error, the others
 * still run); notifications and responses get no answer.
 */
export const makeBatch = Effect.gen(function*() {
  const keys = yield* KeyCheck

  return (principal: Auth.Principal, messages: ReadonlyArray<unknown>, paths: BatchPaths) =>
    Effect.gen(function*() {
      if (messages.length === 0) return refused("Invalid Request: an empty batch")
      if (messages.length > MAX_BATCH_CALLS) {
        return refused(
          `Invalid Request: a batch holds at most ${MAX_BATCH_CALLS} messages; this one has ${messages.length}`
        )
      }
      const answers: Array<unknown> = []
      let last: Decision | undefined
      for (let i = 0; i < messages.length; i++) {
        if (i > 0) {
          yield* Effect.yieldNow()
          last = yield* keys.take(principal)
        }
        const answer = yield* answerOne(messages[i], last, paths)
        if (answer !== undefined) answers.push(answer)
      }
      // in place of the authentication's: the headers tell what the batch left, not what its first call did
      if (last !== undefined) noteDecision(yield* HttpServerRequest.HttpServerRequest, last)
      // only notifications and responses: accepted, nothing to say (MCP's streamable HTTP)
      return answers.length === 0 ? HttpServerResponse.empty({ status: 202 }) : HttpServerResponse.unsafeJson(answers)
    })
})

/**
 * One message that is not a batch, answered as a batch answers each of its messages: a request's answer (200), an
 * invalid request's error (400, as for a refused batch), nothing for a notification or a response (202).
 */
export const answerSingle = (message: unknown, paths: BatchPaths) =>
  Effect.map(answerOne(message, undefined, paths), (answer) =>
    answer === undefined
      ? HttpServerResponse.empty({ status: 202 })
      : HttpServerResponse.unsafeJson(answer, {
        status: (answer as { error?: { code?: unknown } }).error?.code === INVALID_REQUEST ? 400 : 200
      }))

const isId = (id: unknown): id is Id =>
  id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id))

const answerOne = (message: unknown, decision: Decision | undefined, paths: BatchPaths): Effect.Effect<unknown> => {
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    return Effect.succeed(invalid("Invalid Request: a JSON-RPC message is an object"))
  }
  const m = message as { readonly jsonrpc?: unknown; readonly id?: unknown; readonly method?: unknown }
  const isRequest = "id" in m
  if (typeof m.method !== "string") {
    // a client's response to the server (which sends no requests): nothing to answer
    return Effect.succeed(
      isRequest && ("result" in m || "error" in m) ? undefined : invalid("Invalid Request: no method")
    )
  }
  if (m.jsonrpc !== "2.0") return Effect.succeed(invalid("Invalid Request: jsonrpc must be \"2.0\""))
  if (isRequest && !isId(m.id)) return Effect.succeed(invalid("Invalid Request: an id is a string, a number or null"))
  if (decision !== undefined && !decision.allowed) {
    return Effect.succeed(isRequest ? limitedAnswer(m.id, decision) : undefined)
  }
  const given = (m as { readonly params?: any }).params
  // `arguments` is optional in MCP: a tools/call without it passes none, to the schema check, the tool and the RPC
  // server alike
  const params = m.method === "tools/call" && given !== null && typeof given === "object" && !("arguments" in given)
    ? { ...given, arguments: {} }
    : given
  if (!isRequest) return Effect.asVoid(paths.rpc(JSON.stringify({ ...m, params })))
  const id = m.id as Id
  const refused = checkRequest(id, m.method, params)
  if (refused !== undefined) return Effect.succeed(refused)
  // params passed the schema; a call with a string or integer id is answered directly (answerToolCall)
  if (m.method === "tools/call" && (typeof id === "string" || Number.isSafeInteger(id))) {
    return paths.toolCall({ id: id as string | number, name: params.name, arguments: params.arguments })
  }
  // the RPC server's codec takes only numeric ids (0 reads as none): it sees 1, the answer carries the client's id
  return Effect.map(paths.rpc(JSON.stringify({ ...m, params, id: 1 })), (answer) => wellFormed(answer, id)).pipe(
    Effect.catchAllCause(() => Effect.succeed(errorAnswer(id, INTERNAL_ERROR, "internal error")))
  )
}
