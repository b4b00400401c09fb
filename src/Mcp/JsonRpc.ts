import { McpSchema } from "@effect/ai"
import { ErrorDetails } from "@shoal/domain"
import { Either, ParseResult, Schema } from "effect"

/** JSON-RPC 2.0's error codes (https://www.jsonrpc.org/specification#error_object). */
export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602
export const INTERNAL_ERROR = -32603

export type Id = string | number | null

export const errorAnswer = (id: Id, code: number, message: string) => ({ jsonrpc: "2.0", id, error: { code, message } })

/** A body that is not JSON: answered with id null, as the spec says when the id cannot be read. */
export const parseError = (e: unknown) =>
  errorAnswer(null, PARSE_ERROR, `Parse error: ${e instanceof Error ? e.message : "the body is not JSON"}`)

// each method MCP's server has, with its params' decoder
const decoders = new Map(
  Array.from(McpSchema.ClientRequestRpcs.requests, ([method, rpc]) => [
    method,
    Schema.decodeUnknownEither(rpc.payloadSchema as Schema.Schema<unknown, unknown>)
  ])
)

/**
 * What the RPC server cannot say well itself, checked before a request reaches it: a method MCP's server does not
 * have (the RPC server answers a defect), params its schema refuses (the RPC server dies with the schema's dump).
 * `undefined` when the request may go on.
 */
export const checkRequest = (id: Id, method: string, params: unknown) => {
  const decode = decoders.get(method)
  if (decode === undefined) return errorAnswer(id, METHOD_NOT_FOUND, `Method not found: ${method}`)
  const decoded = Either.try(() => decode(params))
  if (Either.isLeft(decoded)) return undefined // a schema that cannot decode synchronously: the RPC server decides
  if (Either.isRight(decoded.right)) return undefined
  const { message } = ErrorDetails.formatDecodeIssues(ParseResult.ArrayFormatter.formatErrorSync(decoded.right.left))
  return errorAnswer(id, INVALID_PARAMS, `Invalid params: ${message.replace("the request body", "params")}`)
}

/**
 * An error answer under `id`: an MCP error keeps its `code` and `message` only (no `_tag`, no cause dump in `data`);
 * a defect, or anything else, is an internal error whose details stay in the log.
 */
export const mcpError = (id: Id, e: unknown) => {
  const { _tag, code, message } = (e ?? {}) as Record<string, unknown>
  return _tag !== "Defect" && Number.isSafeInteger(code) && code !== 0 && typeof message === "string"
    ? errorAnswer(id, code as number, message)
    : errorAnswer(id, INTERNAL_ERROR, "internal error")
}

/** The RPC server's answer as JSON-RPC 2.0 has it, under the client's id: its result, or its error as `mcpError`. */
export const wellFormed = (answer: unknown, id: Id) => {
  if (answer === null || typeof answer !== "object") return errorAnswer(id, INTERNAL_ERROR, "internal error")
  const a = answer as { readonly result?: unknown; readonly error?: unknown }
  return "result" in a ? { jsonrpc: "2.0", id, result: a.result } : mcpError(id, a.error)
}
