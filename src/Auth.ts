import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, Errors } from "@shoal/domain"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { admitted } from "./Auth/Caller.js"
import { Heartbeat } from "./Auth/Heartbeat.js"
import { KeyCache } from "./Auth/KeyCache.js"
import { hashKey, presentedKey } from "./Auth/Keys.js"
import type { KeyHolder } from "./Auth/KeysRepo.js"
import { type Decision, enforceOn, noteDecision, RateLimiter } from "./Auth/RateLimiter.js"
import { ConsoleSessions, sessionToken } from "./Auth/Sessions.js"

export { presentedKey }

/** CONTRACT "API calls": the extended rate limit multiplies the caller's bucket by 10 while it lasts. */
export const EXTENDED_MULTIPLIER = 10

/** What a request's key amounts to: the plain case (a known key within its limit), or why not. */
export type KeyCheckResult =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Limited"; readonly principal: Auth.Principal; readonly decision: Decision }
  | { readonly _tag: "Allowed"; readonly principal: Auth.Principal; readonly decision: Decision }

const missing: KeyCheckResult = { _tag: "Missing" }
const unknown: KeyCheckResult = { _tag: "Unknown" }

/**
 * The one key check, for HTTP, MCP and the event socket alike: a key resolves to its principal (src/Auth/KeyCache.ts)
 * and takes a token from its account's bucket (premium multiplier included); an allowed call counts as a heartbeat.
 * A call past its limit takes nothing and touches nothing, so checking it again decides the same.
 */
export class KeyCheck extends Effect.Service<KeyCheck>()("Auth/KeyCheck", {
  effect: Effect.gen(function*() {
    const keys = yield* KeyCache
    const limiter = yield* RateLimiter
    const heartbeat = yield* Heartbeat
    // optional, so a layer built without it still builds: then only keys authenticate (src/Auth/Sessions.ts)
    const sessions = Option.getOrUndefined(yield* Effect.serviceOption(ConsoleSessions))

    const multiplierAt = (extendedUntil: number, now: number) => extendedUntil > now ? EXTENDED_MULTIPLIER : 1

    /** What a holder read for a key amounts to at `now`: a token taken and a heartbeat counted when allowed. */
    const decide = (found: Option.Option<KeyHolder>, now: number): KeyCheckResult => {
      if (Option.isNone(found)) return unknown
      const { extendedUntil, principal } = found.value
      const decision = limiter.takeAt(principal.id, multiplierAt(extendedUntil, now), now)
      if (!decision.allowed) return { _tag: "Limited", principal, decision }
      heartbeat.touchAt(principal.id, principal.userType, now)
      return { _tag: "Allowed", principal, decision }
    }

    // the hottest step there is (every authenticated call): a key already read is decided within one fiber step,
    // the clock read, its holder, bucket and heartbeat all synchronous (bench/README.md, "The one path, profiled")
    const withHolder = <A>(hash: string, f: (found: Option.Option<KeyHolder>, now: number) => A): Effect.Effect<A> =>
      Effect.clockWith((clock) => {
        const now = clock.unsafeCurrentTimeMillis()
        const known = keys.peek(hash, now)
        return known !== undefined
          ? Effect.succeed(f(known, now))
          : Effect.map(keys.get(hash, now), (found) => f(found, now))
      })

    /** A console session's principal counted as a call of the key it was made from (its bucket and multiplier). */
    const admit = (principal: Auth.Principal): Effect.Effect<KeyCheckResult> =>
      Effect.flatMap(take(principal), (decision): Effect.Effect<KeyCheckResult> =>
        decision.allowed
          ? Effect.as(heartbeat.touch(principal.id, principal.userType), { _tag: "Allowed", principal, decision })
          : Effect.succeed({ _tag: "Limited", principal, decision }))

    /**
     * A request's key decided within the caller's own step (`now`: its clock reading) when its holder is already read
     * (`KeyCache.peek`); `undefined` otherwise (no key, a console session, a key to read), and `check` decides.
     */
    const checkKnown = (headers: Readonly<Record<string, string | undefined>>, now: number) => {
      const key = presentedKey(headers)
      if (key === undefined) return undefined
      const known = keys.peek(hashKey(key), now)
      return known === undefined ? undefined : decide(known, now)
    }

    /** A key as presented (an auth frame's `api_key`). */
    const checkKey = (key: string) => withHolder(hashKey(key), decide)

    /**
     * A request's key: `Authorization: Bearer <key>`, else `X-API-Key`, else a console session's cookie on a request
     * the console made (its header, this origin).
     */
    const check = (headers: Readonly<Record<string, string | undefined>>): Effect.Effect<KeyCheckResult> => {
      const key = presentedKey(headers)
      if (key !== undefined) return checkKey(key)
      if (sessions === undefined) return Effect.succeed(missing)
      return Effect.flatMap(
        sessions.forRequest(headers),
        (found) =>
          found._tag === "Found" ? admit(found.principal) : Effect.succeed(found._tag === "Ended" ? unknown : missing)
      )
    }

    /** The event socket's upgrade: a key in a header, or a console session's cookie from this origin. */
    const checkUpgrade = (headers: Readonly<Record<string, string | undefined>>): Effect.Effect<KeyCheckResult> => {
      const key = presentedKey(headers)
      if (key !== undefined) return checkKey(key)
      if (sessions === undefined || sessionToken(headers) === undefined) return Effect.succeed(missing)
      return Effect.flatMap(
        sessions.forSocket(headers),
        (found) => found._tag === "Found" ? admit(found.principal) : Effect.succeed(unknown)
      )
    }

    /** One more call of an authenticated principal (each message of an MCP batch after the first). */
    const take = (principal: Auth.Principal): Effect.Effect<Decision> =>
      withHolder(
        principal.keyHash,
        (found, now) =>
          limiter.takeAt(principal.id, Option.isSome(found) ? multiplierAt(found.value.extendedUntil, now) : 1, now)
      )

    return { check, checkKey, checkKnown, checkUpgrade, take } as const
  })
}) {}

export const unauthorized = (message: string) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((_req, res) =>
      Effect.succeed(HttpServerResponse.setHeader(res, "www-authenticate", "Bearer"))
    ),
    Effect.fail(new Errors.Unauthorized({ message }))
  )

export const missingKeyMessage = "an API key is required: Authorization: Bearer <key> or X-API-Key"
export const unknownKeyMessage = "the API key is unknown or revoked"

/**
 * The API's authentication: the key check, with the contract's 401 and 429 answers and rate-limit headers. A key
 * whose holder is already read (nearly every call) is decided within this middleware's one step, the clock read from
 * the fiber's services as `Effect.clock` does; any other goes through `check`.
 */
export const AuthenticationLive = Layer.effect(
  Auth.Authentication,
  Effect.map(KeyCheck, ({ check, checkKnown }) => {
    const answer = (
      request: HttpServerRequest.HttpServerRequest,
      checked: KeyCheckResult
    ): Effect.Effect<Auth.Principal, Errors.Unauthorized | Errors.RateLimited> => {
      switch (checked._tag) {
        case "Missing":
          return unauthorized(missingKeyMessage)
        case "Unknown":
          return unauthorized(unknownKeyMessage)
        case "Allowed":
          noteDecision(request, checked.decision)
          admitted(request, checked.principal)
          return Effect.succeed(checked.principal)
        case "Limited":
          admitted(request, checked.principal)
          return Effect.as(enforceOn(request, checked.decision, "requests per minute"), checked.principal)
      }
    }
    return Effect.withFiberRuntime((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const now = Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis()
      const known = checkKnown(request.headers, now)
      return known !== undefined
        ? answer(request, known)
        : Effect.flatMap(check(request.headers), (checked) => answer(request, checked))
    })
  })
)
