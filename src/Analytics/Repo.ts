import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"

const Figures = Schema.Struct({
  tasks_open: Schema.Number,
  tasks_completed: Schema.Number,
  gems_earned: Schema.NumberFromString,
  gems_spent: Schema.NumberFromString,
  gig_applications: Schema.Number,
  gig_applications_accepted: Schema.Number
})

const Holding = Schema.Struct({ expires_at: Schema.NullOr(Schema.DateFromSelf) })

export class AnalyticsRepo extends Effect.Service<AnalyticsRepo>()("Analytics/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The feature's row if the user holds it at `now`. */
    const holding = SqlSchema.findOne({
      Request: Schema.Struct({ user: Ids.UserId, feature: Schema.String, now: Schema.DateFromSelf }),
      Result: Holding,
      execute: ({ feature, now, user }) =>
        sql`SELECT expires_at FROM premium_features WHERE user_id = ${user} AND feature_id = ${feature}
            AND (expires_at IS NULL OR expires_at > ${now})`
    })

    const figures = SqlSchema.single({
      Request: Schema.Struct({ user: Ids.UserId, from: Schema.DateFromSelf }),
      Result: Figures,
      execute: ({ from, user }) =>
        sql`SELECT
          (SELECT count(*)::int FROM tasks WHERE assigned_to_id = ${user}
            AND status NOT IN ('completed', 'cancelled', 'archived')) AS tasks_open,
          (SELECT count(*)::int FROM tasks WHERE assigned_to_id = ${user} AND completed_at >= ${from}) AS tasks_completed,
          (SELECT coalesce(sum(e.amount) FILTER (WHERE e.amount > 0), 0)::text FROM gem_entries e
            JOIN gem_accounts a ON a.id = e.account_id JOIN gem_transactions t ON t.id = e.transaction_id
            WHERE a.user_id = ${user} AND a.kind = 'available' AND t.created_at >= ${from}) AS gems_earned,
          (SELECT coalesce(-sum(e.amount) FILTER (WHERE e.amount < 0), 0)::text FROM gem_entries e
            JOIN gem_accounts a ON a.id = e.account_id JOIN gem_transactions t ON t.id = e.transaction_id
            WHERE a.user_id = ${user} AND a.kind = 'available' AND t.created_at >= ${from}) AS gems_spent,
          (SELECT count(*)::int FROM gig_applications WHERE applicant_id = ${user} AND created_at >= ${from})
            AS gig_applications,
          (SELECT count(*)::int FROM gig_applications WHERE applicant_id = ${user} AND created_at >= ${from}
            AND status = 'accepted') AS gig_applications_accepted`
    })

    return {
      holding: (user: Ids.UserId, feature: string, now: Date) => Effect.orDie(holding({ user, feature, now })),
      figures: (user: Ids.UserId, from: Date) => Effect.orDie(figures({ user, from }))
    } as const
  })
}) {}
