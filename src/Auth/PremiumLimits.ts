import type { Ids } from "@shoal/domain"
import { Clock, Duration, Effect } from "effect"
import * as TtlCache from "../Cache/TtlCache.js"
import { PremiumRepo } from "../Wallet/PremiumRepo.js"

/** CONTRACT "API calls": `extended_rate_limits_30d` multiplies the caller's bucket by 10 while it lasts. */
export const EXTENDED_RATE_LIMITS = "extended_rate_limits_30d"
export const EXTENDED_MULTIPLIER = 10

/** How long a read of a holding is trusted (a redemption in this process forgets it at once). */
const VALID_MS = 30_000
const RECHECK_EVERY = Duration.seconds(15)
const IDLE_MS = 10 * 60_000
const CHECK_BATCH = 1_000

/** when the extended limit ends (ms); 0: not held; Infinity: permanent */
const untilOf = (expiresAt: Date | null | undefined) =>
  expiresAt === undefined ? 0 : expiresAt === null ? Infinity : expiresAt.getTime()

/**
 * The rate-limit multiplier of each user, read from `premium_features` on the user's first call and trusted for
 * 30 s (a redemption on another process shows within that). The holdings of users calling in the last 10 minutes
 * are reread in bulk every 15 s, so a keyed request costs a map lookup and does not wait on the database every
 * 30 s. Expiry is decided on every request from the stored end, not by the reread.
 */
export class PremiumLimits extends Effect.Service<PremiumLimits>()("Auth/PremiumLimits", {
  scoped: Effect.gen(function*() {
    const premium = yield* PremiumRepo
    const held = yield* TtlCache.make({
      capacity: 100_000,
      ttlMillis: () => VALID_MS,
      lookup: (user: Ids.UserId) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.map(
            premium.active(user, new Date(now)),
            (features) => untilOf(features.find((x) => x.feature_id === EXTENDED_RATE_LIMITS)?.expires_at)
          ))
    })

    const multiplier = (user: Ids.UserId) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => Effect.map(held.get(user), (until) => until > now ? EXTENDED_MULTIPLIER : 1)
      )

    /** The multiplier at `now` when the holding is cached, read synchronously; undefined when it is not. */
    const multiplierAt = (user: Ids.UserId, now: number): number | undefined => {
      const until = held.peek(user)
      return until === undefined ? undefined : until > now ? EXTENDED_MULTIPLIER : 1
    }

    const forget = (user: Ids.UserId) => held.invalidate(user)

    // a holding that changed is dropped, and read again by its user's next call
    const recheck = held.recheck(
      CHECK_BATCH,
      IDLE_MS,
      (entries) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.map(
            premium.heldUntil(entries.map(([user]) => user), EXTENDED_RATE_LIMITS, new Date(now)),
            (ends) => new Set(entries.flatMap(([user, until]) => untilOf(ends.get(user)) === until ? [] : [user]))
          ))
    ).pipe(Effect.catchAllCause((cause) => Effect.logWarning("premium limits recheck failed", cause)))
    yield* held.awaitUse.pipe(
      Effect.zipRight(Effect.sleep(RECHECK_EVERY)),
      Effect.zipRight(recheck),
      Effect.forever,
      Effect.forkScoped
    )

    return { multiplier, multiplierAt, forget } as const
  }),
  dependencies: [PremiumRepo.Default]
}) {}
