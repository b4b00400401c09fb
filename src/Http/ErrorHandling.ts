import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMethod from "@effect/platform/HttpMethod"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { ErrorDetails } from "@shoal/domain"
import { Cause, Effect, Option } from "effect"
import { describeReason, unavailableReason } from "../Database/Unavailable.js"
import { DependencyUnavailable } from "./DependencyUnavailable.js"
import { apiErrorResponse, errorResponse, isApiError, unavailableResponse } from "./ErrorEnvelope.js"
import {
  declaresBody,
  isJsonMediaType,
  nulFieldsInJson,
  nulFieldsInUrl,
  nulResponse,
  readBody,
  surrogateFieldsInJson,
  unsupportedMediaType,
  withBody
} from "./RequestChecks.js"

const MAX_BODY_BYTES = 1024 * 1024

const tooLarge = () =>
  // the rest of the body is not read: close the connection so the client sees this answer, not a reset
  errorResponse(
    413,
    "payload_too_large",
    `the request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)`,
    undefined,
    { connection: "close" }
  )

/** Deeper JSON is refused before decoding: no request needs it, and decoding it overflowed the stack. */
const MAX_JSON_DEPTH = 64

/** Whether `text`, read as JSON, opens more than `max` arrays or objects inside each other (strings skipped). */
const nestedDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: the next character is escaped
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > max) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

/** Turns every failure or defect into the contract's JSON error body, so no route answers with an empty 4xx/5xx. */
export const toResponse = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    const candidates = [...Option.toArray(Cause.failureOption(cause)), ...Cause.defects(cause)]
    for (const e of candidates) {
      if (isApiError(e)) return apiErrorResponse(e)
      if (e instanceof HttpApiDecodeError) {
        // every schema decode failure (body, path, query, headers) through the one formatter: the field and the fix
        const { details, message } = ErrorDetails.formatDecodeIssues(e.issues)
        return errorResponse(400, "invalid_request", message, details)
      }
      if (HttpServerError.isServerError(e)) {
        if (e._tag === "RouteNotFound") {
          return errorResponse(404, "not_found", `no route for ${e.request.method} ${e.request.url.split("?")[0]}`)
        }
        if (e._tag === "RequestError") {
          const message = e.reason === "Decode" ? "the request body is not valid JSON" : "the request could not be read"
          return errorResponse(400, "invalid_request", message)
        }
      }
      // the database down or too slow is not a bug in this request: 503, come back later
      const reason = unavailableReason(e)
      if (reason !== undefined) {
        yield* Effect.logWarning("database unavailable", cause)
        return unavailableResponse(describeReason(reason), { database: "down", reason })
      }
      if (e instanceof DependencyUnavailable) {
        yield* Effect.logWarning(`${e.dependency} unavailable`, cause)
        return unavailableResponse(e.message, { [e.dependency]: "down", reason: e.reason })
      }
    }
    yield* Effect.logError("unhandled failure", cause)
    return errorResponse(500, "internal_error", "the server failed to handle this request")
  })

/** How much of a body past the limit is read and dropped so the 413 reaches the client (see `readBody`). */
const DRAIN_BYTES = 8 * MAX_BODY_BYTES

/**
 * `app` behind the body's checks, read here once for every route (src/Http/ApiMiddleware.ts puts the error envelope
 * around it): refused if not JSON (415), too large (413, also when chunked; a declared length past the limit before
 * anything is read) or too deep (400); NUL characters in it or in the URL get a 400 naming the field (PostgreSQL text
 * cannot hold them; checked here, every string of every future route is). An empty body is the empty JSON body
 * whatever its type (HttpApi's multipart parser waits forever on an empty one). No generator: most return early.
 */
export const guarded = (app: HttpApp.Default, request: HttpServerRequest.HttpServerRequest): HttpApp.Default => {
  const length = request.headers["content-length"]
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) return Effect.succeed(tooLarge())
  const inUrl = nulFieldsInUrl(request.url)
  if (inUrl.length > 0) return Effect.succeed(nulResponse(inUrl))
  // the hot path (GET, DELETE …) goes straight on
  if (!HttpMethod.hasBody(request.method)) return app
  const type = request.headers["content-type"]
  const declared = declaresBody(request.headers)
  // a body of another type is refused unread; an empty one is the empty body all-optional POSTs accept
  if (type !== undefined && !isJsonMediaType(type) && declared) return Effect.succeed(unsupportedMediaType(type))
  const asJson = type !== undefined && !type.toLowerCase().includes("application/json")
  // no Content-Length and no Transfer-Encoding (or a zero length) means no body (RFC 9112 6.3): the hottest POSTs
  // (heartbeats) come that way, and reading an empty Stream costs as much as the rest; "" passes every check below
  if (!declared) {
    withBody(request, "", asJson)
    return app
  }
  // a failed read (the client went away) is a RequestError: the envelope maps it
  return Effect.flatMap(Effect.orDie(readBody(request, MAX_BODY_BYTES, DRAIN_BYTES)), (body) => {
    if (body._tag === "TooLarge") return Effect.succeed(tooLarge())
    if (nestedDeeperThan(body.text, MAX_JSON_DEPTH)) {
      return Effect.succeed(
        errorResponse(400, "invalid_request", `the request body is nested more than ${MAX_JSON_DEPTH} levels deep`)
      )
    }
    const inBody = nulFieldsInJson(body.text)
    if (inBody.length > 0) return Effect.succeed(nulResponse(inBody))
    const surrogates = surrogateFieldsInJson(body.text)
    if (surrogates.length > 0) return Effect.succeed(nulResponse(surrogates))
    withBody(request, body.text, asJson)
    return app
  })
}
