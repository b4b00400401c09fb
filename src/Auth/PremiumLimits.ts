import type { Ids } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { PremiumRepo } from "../Wallet/PremiumRepo.js"

/** CONTRACT "API calls": `extended_rate_limits_30d` multiplies the caller's bucket by 10 while it lasts. */
export const EXTENDED_RATE_LIMITS = "extended_rate_limits_30d"
export const EXTENDED_MULTIPLIER = 10

/** How often the holdings of the users in the map are read again, in bulk (a redemption here forgets at once). */
const RECHECK_MS = 30_000
/** A user not heard from for this long leaves the map. */
const IDLE_MS = 10 * 60_000
const CHECK_BATCH = 1_000

interface Held {
  /** when the extended limit ends (ms); 0: not held; Infinity: permanent */
  until: number
  seenAt: number
}

const untilOf = (expiresAt: Date | null | undefined) =>
  expiresAt === undefined ? 0 : expiresAt === null ? Infinity : expiresAt.getTime()

/**
 * The rate-limit multiplier of each user, read from `premium_features` on the user's first call, then kept up to
 * date by a bulk reread every 30 s (a redemption on another process shows within that), so a keyed request costs a
 * map lookup and never waits on the database again while the user keeps calling. Expiry is decided on every
 * request from the stored end, not by the reread.
 */
export class PremiumLimits extends Effect.Service<PremiumLimits>()("Auth/PremiumLimits", {
  scoped: Effect.gen(function*() {
    const premium = yield* PremiumRepo
    const held = new Map<Ids.UserId, Held>()

    const multiplier = (user: Ids.UserId) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const known = held.get(user)
        if (known !== undefined) {
          known.seenAt = now
          return Effect.succeed(known.until > now ? EXTENDED_MULTIPLIER : 1)
        }
        return Effect.map(premium.active(user, new Date(now)), (features) => {
          const until = untilOf(features.find((x) => x.feature_id === EXTENDED_RATE_LIMITS)?.expires_at)
          // bounded memory, should idle users not leave fast enough
          if (held.size > 100_000) held.clear()
          held.set(user, { until, seenAt: now })
          return until > now ? EXTENDED_MULTIPLIER : 1
        })
      })

    const forget = (user: Ids.UserId) => Effect.sync(() => held.delete(user))

    const recheck = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const users: Array<readonly [Ids.UserId, Held]> = []
      for (const [u, h] of held) {
        if (now - h.seenAt > IDLE_MS) held.delete(u)
        else users.push([u, h])
      }
      for (let i = 0; i < users.length; i += CHECK_BATCH) {
        const batch = users.slice(i, i + CHECK_BATCH)
        const ends = yield* premium.heldUntil(batch.map(([u]) => u), EXTENDED_RATE_LIMITS, new Date(now))
        // an entry forgotten (a redemption here) or replaced while this read ran keeps what it has
        for (const [u, h] of batch) if (held.get(u) === h) h.until = untilOf(ends.get(u))
      }
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("premium limits recheck failed", cause)))
    yield* recheck.pipe(Effect.delay(RECHECK_MS), Effect.forever, Effect.forkScoped)

    return { multiplier, forget } as const
  }),
  dependencies: [PremiumRepo.Default]
}) {}
