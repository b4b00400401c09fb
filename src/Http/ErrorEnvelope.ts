import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Errors } from "@shoal/domain"
import { retryAfterSeconds } from "../Database/Unavailable.js"

/** The contract's error body, for errors written outside HttpApi's encoder. */
export const errorResponse = (
  status: number,
  code: string,
  message: string,
  details?: unknown,
  headers?: Record<string, string>
) =>
  HttpServerResponse.unsafeJson(
    { status: "error", error: details === undefined ? { code, message } : { code, message, details } },
    { status, ...(headers ? { headers } : {}) }
  )

export const isApiError = (u: unknown): u is Errors.ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && (u as { _tag: string })._tag in Errors.errorCodes

export const apiErrorResponse = (e: Errors.ApiError) => {
  const [code, status] = Errors.errorCodes[e._tag]
  return errorResponse(status, code, e.message, e.details)
}

/**
 * 503 `unavailable` for a request that met the database, or a dependency of this process (the wallet over RPC), down
 * or past its deadline, or that write admission shed; details say which and why.
 */
export const unavailableResponse = (message: string, details: Record<string, string>, retryAfter = retryAfterSeconds) =>
  errorResponse(503, "unavailable", `${message}; retry after ${retryAfter} s`, details, {
    "retry-after": String(retryAfter)
  })
