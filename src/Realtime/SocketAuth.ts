import type { Auth } from "@shoal/domain"
import { Config, Duration, Effect, Option, Runtime } from "effect"
import { hashKey } from "../Accounts/Keys.js"
import { presentedKey } from "../Auth.js"
import { PremiumLimits } from "../Auth/PremiumLimits.js"
import { RateLimiter } from "../Auth/RateLimiter.js"
import { ConsoleSessions, sessionToken } from "../Auth/Sessions.js"
import * as Batcher from "./Batcher.js"
import { KeysRepo } from "./KeysRepo.js"

export type SocketAuthResult =
  | { readonly _tag: "Ok"; readonly principal: Auth.Principal }
  | { readonly _tag: "Unauthorized"; readonly message: string }
  | { readonly _tag: "RateLimited"; readonly retryAfter: number }

/**
 * The API's key check (the account's rate-limit bucket, premium multiplier included) for the socket, which lives outside HttpApi. Lookups are batched
 * rather than cached: after a deploy thousands of clients reconnect at once, and each socket authenticates once.
 */
export class SocketAuth extends Effect.Service<SocketAuth>()("Realtime/SocketAuth", {
  scoped: Effect.gen(function*() {
    const repo = yield* KeysRepo
    const limiter = yield* RateLimiter
    const premium = yield* PremiumLimits
    const run = Runtime.runCallback(yield* Effect.runtime<never>())

    // a few milliseconds more per connect, for a storm's lookups in tens of statements rather than a thousand; with
    // SOCKET_AUTH_BATCH_MAX_LINGER set longer, a batch lingers again while keys keep coming (a lookup of 30 keys cost
    // the embedded database about 110 µs a key, one of 250 about 35), but by default it does not: clients that open
    // sockets in waves wait for each wave, so the longer wait was added per wave and ate the saving (bench/README.md,
    // fanout, connect3)
    const linger = yield* Config.duration("SOCKET_AUTH_BATCH_LINGER").pipe(Config.withDefault(Duration.millis(5)))
    const maxLinger = yield* Config.duration("SOCKET_AUTH_BATCH_MAX_LINGER").pipe(Config.withDefault(linger))
    const lookups = yield* Batcher.makeBatched(
      (hashes: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(repo.principals(hashes)), (found) => hashes.map((h) => found.get(h))),
      500,
      linger,
      maxLinger
    )
    const lookup = lookups.request

    const check = (key: string): Effect.Effect<SocketAuthResult> =>
      Effect.flatMap(lookup(hashKey(key)), (principal) =>
        principal === undefined
          ? Effect.succeed<SocketAuthResult>({ _tag: "Unauthorized", message: "the API key is unknown or revoked" })
          : admit(principal))

    const admit = (principal: Auth.Principal): Effect.Effect<SocketAuthResult> =>
      Effect.gen(function*() {
        const decision = yield* limiter.take(principal.id, yield* premium.multiplier(principal.id))
        return decision.allowed
          ? { _tag: "Ok", principal }
          : { _tag: "RateLimited", retryAfter: decision.retryAfter }
      })

    // a console session's cookie, when the upgrade carries no key (src/Auth/Sessions.ts); optional like the API's
    const sessions = yield* Effect.serviceOption(ConsoleSessions)

    const fromHeaders = (headers: Readonly<Record<string, string | undefined>>) => {
      const key = presentedKey(headers)
      if (key === undefined && Option.isSome(sessions) && sessionToken(headers) !== undefined) {
        return Effect.flatMap(sessions.value.forSocket(headers), (s) =>
          s._tag === "Found"
            ? admit(s.principal)
            : Effect.succeed<SocketAuthResult>({
              _tag: "Unauthorized",
              message: "the console session is unknown, ended or from another site"
            }))
      }
      return key === undefined
        ? Effect.succeed<SocketAuthResult>({
          _tag: "Unauthorized",
          message: "an API key is required: Authorization: Bearer <key> or X-API-Key"
        })
        : check(key)
    }

    /**
     * The plain case outside any fiber (the upgrade's front door): the principal of a known key within its limit,
     * or `undefined` for anything else (no key, an unknown key, a limit reached, a failed lookup), which the
     * general path then checks and answers as always; only a call let through is counted. `done` is called once.
     */
    const checkNow = (
      headers: Readonly<Record<string, string | undefined>>,
      now: () => number,
      done: (principal: Auth.Principal | undefined) => void
    ): void => {
      const key = presentedKey(headers)
      if (key === undefined) return done(undefined)
      lookups.submit(hashKey(key), (exit) => {
        if (exit._tag === "Failure" || exit.value === undefined) return done(undefined)
        const principal = exit.value
        const decide = (multiplier: number) =>
          done(limiter.takeAt(principal.id, multiplier, now()).allowed ? principal : undefined)
        const cached = premium.multiplierAt(principal.id, now())
        if (cached !== undefined) return decide(cached)
        // the account's premium holding, read as the general path would, before its bucket is judged
        run(premium.multiplier(principal.id), {
          onExit: (held) => held._tag === "Success" ? decide(held.value) : done(undefined)
        })
      })
    }

    return { check, fromHeaders, checkNow } as const
  }),
  dependencies: [KeysRepo.Default]
}) {}
