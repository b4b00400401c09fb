import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Errors } from "@shoal/domain"
import { describeReason, type Reason, retryAfterSeconds } from "../Database/Unavailable.js"
import { type DependencyUnavailable, describeDependency } from "./DependencyUnavailable.js"

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

/** 503 `unavailable` for a request that met the database down or past its deadline; details say which. */
export const unavailableResponse = (reason: Reason) =>
  errorResponse(
    503,
    "unavailable",
    `${describeReason(reason)}; retry after ${retryAfterSeconds} s`,
    { database: "down", reason },
    { "retry-after": String(retryAfterSeconds) }
  )

/** The same 503 for a dependency of this process (the wallet over RPC) that is down; details name it. */
export const dependencyUnavailableResponse = (e: DependencyUnavailable) =>
  errorResponse(
    503,
    "unavailable",
    `${describeDependency(e)}; retry after ${retryAfterSeconds} s`,
    { [e.dependency]: "down", reason: e.reason },
    { "retry-after": String(retryAfterSeconds) }
  )
