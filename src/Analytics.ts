import type { Auth } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { DateTime, Effect, Option } from "effect"
import { AnalyticsRepo } from "./Analytics/Repo.js"

export const ANALYTICS_FEATURE = "premium_analytics_30d"
const PERIOD_MS = 30 * 86_400_000

/** `GET /api/agent/analytics`: the caller's last 30 days, for holders of the Premium Analytics Dashboard. */
export class Analytics extends Effect.Service<Analytics>()("Analytics", {
  effect: Effect.gen(function*() {
    const repo = yield* AnalyticsRepo

    const forCaller = (caller: Auth.Principal) =>
      Effect.gen(function*() {
        const now = yield* DateTime.nowAsDate
        const held = yield* repo.holding(caller.id, ANALYTICS_FEATURE, now)
        if (Option.isNone(held)) {
          return yield* new Errors.Forbidden({
            message: `analytics need the Premium Analytics Dashboard (redeem ${ANALYTICS_FEATURE})`
          })
        }
        const from = new Date(now.getTime() - PERIOD_MS)
        const figures = yield* repo.figures(caller.id, from)
        return {
          from: from.toISOString(),
          to: now.toISOString(),
          ...figures,
          premium_expires_at: held.value.expires_at === null ? null : held.value.expires_at.toISOString()
        }
      })

    return { forCaller } as const
  }),
  dependencies: [AnalyticsRepo.Default]
}) {}
