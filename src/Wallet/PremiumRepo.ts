import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"

const FeatureRow = Schema.Struct({ feature_id: Schema.String, expires_at: Schema.NullOr(Schema.DateFromSelf) })

/** Premium features held: one row per user and feature, extended on each redemption, NULL expiry = permanent. */
export class PremiumRepo extends Effect.Service<PremiumRepo>()("Wallet/PremiumRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Grants or extends: from the later of now and the current expiry. Returns the new expiry (null: permanent). */
    const grant = (
      user: Ids.UserId,
      feature: string,
      days: number | null,
      transactionId: Ids.LedgerTransactionId,
      now: Date
    ) =>
      Effect.orDie(Effect.map(
        sql<{ expires_at: Date | null }>`
          INSERT INTO premium_features (user_id, feature_id, expires_at, transaction_id, updated_at)
          VALUES (${user}, ${feature},
            ${days === null ? null : new Date(now.getTime() + days * 86_400_000)}::timestamptz,
            ${transactionId}, ${now})
          ON CONFLICT (user_id, feature_id) DO UPDATE SET
            expires_at = CASE WHEN ${days === null} THEN NULL
              ELSE greatest(premium_features.expires_at, ${now}::timestamptz) + make_interval(days => ${days ?? 0})
            END,
            transaction_id = excluded.transaction_id, updated_at = excluded.updated_at
          RETURNING expires_at`,
        (rows) => rows[0]!.expires_at
      ))

    /** The features the user holds at `now`. */
    const active = SqlSchema.findAll({
      Request: Schema.Struct({ user: Ids.UserId, now: Schema.DateFromSelf }),
      Result: FeatureRow,
      execute: ({ now, user }) =>
        sql`SELECT feature_id, expires_at FROM premium_features
            WHERE user_id = ${user} AND (expires_at IS NULL OR expires_at > ${now})`
    })

    return {
      grant,
      active: (user: Ids.UserId, now: Date) => Effect.orDie(active({ user, now }))
    } as const
  })
}) {}
