import type { Ids } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { PremiumRepo } from "../Wallet/PremiumRepo.js"

/** CONTRACT "API calls": `extended_rate_limits_30d` multiplies the caller's bucket by 10 while it lasts. */
export const EXTENDED_RATE_LIMITS = "extended_rate_limits_30d"
export const EXTENDED_MULTIPLIER = 10

/** How long a user's holding is trusted before it is read again (a redemption in this process forgets it at once). */
const RECHECK_MS = 30_000

interface Held {
  /** when the extended limit ends (ms); 0: not held; Infinity: permanent */
  readonly until: number
  readonly checkedAt: number
}

/**
 * The rate-limit multiplier of each user, read from `premium_features` at most once per 30 s per user, so a
 * keyed request costs a map lookup. Expiry is decided on every request from the stored end, not by the recheck.
 */
export class PremiumLimits extends Effect.Service<PremiumLimits>()("Auth/PremiumLimits", {
  effect: Effect.gen(function*() {
    const premium = yield* PremiumRepo
    const held = new Map<string, Held>()

    const multiplier = (user: Ids.UserId) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const known = held.get(user)
        if (known !== undefined && now - known.checkedAt < RECHECK_MS && now >= known.checkedAt) {
          return Effect.succeed(known.until > now ? EXTENDED_MULTIPLIER : 1)
        }
        return Effect.map(premium.active(user, new Date(now)), (features) => {
          const f = features.find((x) => x.feature_id === EXTENDED_RATE_LIMITS)
          const until = f === undefined ? 0 : f.expires_at === null ? Infinity : f.expires_at.getTime()
          // keep the map the size of the recently active users
          if (held.size > 100_000) held.clear()
          held.set(user, { until, checkedAt: now })
          return until > now ? EXTENDED_MULTIPLIER : 1
        })
      })

    const forget = (user: Ids.UserId) => Effect.sync(() => held.delete(user))

    return { multiplier, forget } as const
  }),
  dependencies: [PremiumRepo.Default]
}) {}
