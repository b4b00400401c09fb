import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Config, Effect } from "effect"
import type { KeyCheck } from "../Auth.js"
import { rateLimitHeaders } from "../Auth/RateLimiter.js"
import { DRAIN_BYTES, MAX_BODY_BYTES, MAX_JSON_DEPTH, nestedDeeperThan } from "./ErrorHandling.js"
import { declaresBody, isJsonMediaType, nulFieldsInJson, readBody } from "./RequestChecks.js"

/**
 * A fast lane answers the plain case of one hot route (its method and exact path, no query string) ahead of the
 * router, the HttpApi decoding and encoding and the middleware chain, which cost a hello-world HttpApi most of its
 * time and an authenticated call more than the call itself. Whatever is not the plain case (no key, an unknown key,
 * a limit reached, a body, a failure) the lane hands to the general path by answering `undefined`, so every other
 * case, every error and its envelope, has one implementation. A lane must answer exactly what the general path
 * would (test/Http/FastLane.test.ts compares the two).
 */
export interface Lane {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly answer: (
    request: HttpServerRequest.HttpServerRequest
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse | undefined, unknown>
}

/** `FAST_LANES=false` sends every request down the general path (for comparing the two). */
export const lanesEnabled = Config.boolean("FAST_LANES").pipe(Config.withDefault(true))

/** The app with its lanes in front. */
export const withLanes = <E, R>(
  lanes: ReadonlyArray<Lane>,
  app: HttpApp.Default<E, R>
): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> => {
  if (lanes.length === 0) return app
  const byPath = new Map<string, Lane>(lanes.map((lane) => [lane.path, lane]))
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const lane = byPath.get(request.url)
    if (lane === undefined || lane.method !== request.method) return app
    return Effect.matchCauseEffect(lane.answer(request), {
      onSuccess: (response): HttpApp.Default<E, R> => response === undefined ? app : Effect.succeed(response),
      // a lane that failed leaves the request to the general path (and its error envelope), interruption aside: a
      // failure after the key check counts the call twice, which only a failing database (503 anyway) does
      onFailure: (cause) => Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : app
    })
  })
}

/**
 * A lane for an authenticated route: the key check's plain case (known key, within its limit: the call counted and
 * touched) is answered by `answer` with the rate-limit headers; every other case goes down the general path, which
 * checks the key again and decides the same (a call past its limit took nothing).
 */
export const authenticatedLane = (
  method: Lane["method"],
  path: string,
  check: (headers: Readonly<Record<string, string | undefined>>) => Effect.Effect<KeyCheck>,
  answer: (
    checked: Extract<KeyCheck, { _tag: "Allowed" }>,
    request: HttpServerRequest.HttpServerRequest
  ) => Effect.Effect<unknown, unknown>,
  plain: (request: HttpServerRequest.HttpServerRequest) => boolean = () => true
): Lane => ({
  method,
  path,
  answer: (request) =>
    plain(request)
      ? Effect.flatMap(check(request.headers), (checked) =>
        checked._tag === "Allowed"
          ? Effect.map(
            answer(checked, request),
            (body) => HttpServerResponse.unsafeJson(body, { headers: rateLimitHeaders(checked.decision) })
          )
          : Effect.succeed(undefined))
      : Effect.succeed(undefined)
})

/**
 * The body of a JSON request the general path would take unchanged (a plain JSON type, a body within the size and
 * depth limits, no NUL in a field), or `undefined`: the lane then leaves the request, whose body stays readable, to
 * the general path and its error answers.
 */
export const plainJsonBody = (request: HttpServerRequest.HttpServerRequest) => {
  const type = request.headers["content-type"]
  const length = request.headers["content-length"]
  if (
    type === undefined || !isJsonMediaType(type) || !type.toLowerCase().includes("application/json") ||
    !declaresBody(request.headers) || (length !== undefined && Number(length) > MAX_BODY_BYTES)
  ) {
    return Effect.succeed(undefined)
  }
  return Effect.map(
    readBody(request, MAX_BODY_BYTES, DRAIN_BYTES),
    (body) =>
      body._tag !== "Text" || nestedDeeperThan(body.text, MAX_JSON_DEPTH) || nulFieldsInJson(body.text).length > 0
        ? undefined
        : body.text
  )
}
