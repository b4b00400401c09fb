import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Auth, Errors } from "@shoal/domain"
import { Effect, Layer, Option } from "effect"
import { hashKey } from "./Accounts/Keys.js"
import { Heartbeat } from "./Auth/Heartbeat.js"
import { KeyCache } from "./Auth/KeyCache.js"
import { PremiumLimits } from "./Auth/PremiumLimits.js"
import { enforce, RateLimiter } from "./Auth/RateLimiter.js"

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

/** Resolves the key to a principal (cached), counts the call against its bucket and as a heartbeat. */
export const AuthenticationLive = Layer.effect(
  Auth.Authentication,
  Effect.gen(function*() {
    const keys = yield* KeyCache
    const limiter = yield* RateLimiter
    const heartbeat = yield* Heartbeat
    const premium = yield* PremiumLimits
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = presentedKey(request.headers)
      if (key === undefined) {
        return yield* unauthorized("an API key is required: Authorization: Bearer <key> or X-API-Key")
      }
      const principal = yield* keys.get(hashKey(key))
      if (Option.isNone(principal)) return yield* unauthorized("the API key is unknown or revoked")
      const multiplier = yield* premium.multiplier(principal.value.id)
      yield* enforce(yield* limiter.take(principal.value.keyHash, multiplier), "requests per minute")
      yield* heartbeat.touch(principal.value.id, principal.value.userType)
      return principal.value
    })
  })
)
