import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, Errors } from "@shoal/domain"
import { Effect, Layer, Option } from "effect"
import { hashKey } from "./Accounts/Keys.js"
import { Heartbeat } from "./Auth/Heartbeat.js"
import { KeyCache } from "./Auth/KeyCache.js"
import { PremiumLimits } from "./Auth/PremiumLimits.js"
import { type Decision, enforce, RateLimiter } from "./Auth/RateLimiter.js"
import { ConsoleSessions } from "./Auth/Sessions.js"

const bearer = /^bearer\s+(\S+)\s*$/i

/** The presented key: `Authorization: Bearer <key>` first, else `X-API-Key`. */
export const presentedKey = (headers: Readonly<Record<string, string | undefined>>): string | undefined => {
  const auth = headers["authorization"]
  if (auth !== undefined) {
    const m = bearer.exec(auth)
    if (m) return m[1]
  }
  const key = headers["x-api-key"]
  return key !== undefined && key.length > 0 ? key.trim() : undefined
}

const unauthorized = (message: string) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((_req, res) =>
      Effect.succeed(HttpServerResponse.setHeader(res, "www-authenticate", "Bearer"))
    ),
    Effect.fail(new Errors.Unauthorized({ message }))
  )

/** What a request's key amounts to: the plain case (a known key within its limit), or why not. */
export type KeyCheck =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Limited"; readonly principal: Auth.Principal; readonly decision: Decision }
  | { readonly _tag: "Allowed"; readonly principal: Auth.Principal; readonly decision: Decision }

const missing: KeyCheck = { _tag: "Missing" }
const unknown: KeyCheck = { _tag: "Unknown" }

/**
 * Resolves a request's key to a principal (cached) and takes a token from its account's bucket; an allowed call counts as a
 * heartbeat. A call past its limit takes nothing and touches nothing, so checking it again decides the same.
 */
export const makeKeyCheck = Effect.gen(function*() {
  const keys = yield* KeyCache
  const limiter = yield* RateLimiter
  const heartbeat = yield* Heartbeat
  const premium = yield* PremiumLimits
  // optional, so a layer built without it (a lane's test) still builds: then only keys authenticate
  const sessions = yield* Effect.serviceOption(ConsoleSessions)
  const admit = (principal: Auth.Principal) =>
    Effect.flatMap(
      premium.multiplier(principal.id),
      (multiplier) =>
        Effect.flatMap(
          limiter.take(principal.id, multiplier),
          (decision): Effect.Effect<KeyCheck> =>
            decision.allowed
              ? Effect.as(heartbeat.touch(principal.id, principal.userType), { _tag: "Allowed", principal, decision })
              : Effect.succeed({ _tag: "Limited", principal, decision })
        )
    )
  return (headers: Readonly<Record<string, string | undefined>>): Effect.Effect<KeyCheck> => {
    const key = presentedKey(headers)
    if (key === undefined) {
      // no key: a console session's cookie may stand for one (src/Auth/Sessions.ts)
      if (Option.isNone(sessions)) return Effect.succeed(missing)
      return Effect.flatMap(
        sessions.value.forRequest(headers),
        (s) => s._tag === "Found" ? admit(s.principal) : Effect.succeed(s._tag === "Ended" ? unknown : missing)
      )
    }
    return Effect.flatMap(
      keys.get(hashKey(key)),
      (found) => Option.isNone(found) ? Effect.succeed(unknown) : admit(found.value)
    )
  }
})

/**
 * The key check's plain case decided synchronously, for a front-door lane (src/Http/FrontDoor.ts): a known key
 * whose principal and premium holding are cached, within its limit, is counted and touched as `makeKeyCheck` does,
 * at the time `now` gives. Anything else (no key, a key or holding not cached, a limit reached) is `undefined`, with
 * nothing taken or touched, and the general path decides it. `ready`, when given, is asked before anything is taken
 * whether the lane can answer this principal from memory too (its own data cached): if not, the same `undefined`.
 */
export const makeKeyCheckNow = Effect.gen(function*() {
  const keys = yield* KeyCache
  const limiter = yield* RateLimiter
  const heartbeat = yield* Heartbeat
  const premium = yield* PremiumLimits
  return (
    headers: Readonly<Record<string, string | string[] | undefined>>,
    now: number,
    ready?: (principal: Auth.Principal) => boolean
  ): Extract<KeyCheck, { _tag: "Allowed" }> | undefined => {
    const key = presentedKey(headers as Readonly<Record<string, string | undefined>>)
    if (key === undefined) return undefined
    const found = keys.peek(hashKey(key))
    if (found === undefined || Option.isNone(found)) return undefined
    const principal = found.value
    const multiplier = premium.multiplierAt(principal.id, now)
    if (multiplier === undefined || (ready !== undefined && !ready(principal))) return undefined
    const decision = limiter.takeAt(principal.id, multiplier, now)
    if (!decision.allowed) return undefined
    heartbeat.touchAt(principal.id, principal.userType, now)
    return { _tag: "Allowed", principal, decision }
  }
})

/** The API's authentication: the key check, with the contract's 401 and 429 answers and rate-limit headers. */
export const AuthenticationLive = Layer.effect(
  Auth.Authentication,
  Effect.map(makeKeyCheck, (check) =>
    Effect.flatMap(
      HttpServerRequest.HttpServerRequest,
      (request) =>
        Effect.flatMap(
          check(request.headers),
          (checked): Effect.Effect<Auth.Principal, Errors.Unauthorized | Errors.RateLimited> => {
            switch (checked._tag) {
              case "Missing":
                return unauthorized("an API key is required: Authorization: Bearer <key> or X-API-Key")
              case "Unknown":
                return unauthorized("the API key is unknown or revoked")
              default:
                return Effect.as(enforce(checked.decision, "requests per minute"), checked.principal)
            }
          }
        )
    ))
)
