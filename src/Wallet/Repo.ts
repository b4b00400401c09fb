import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"

export const BalanceRow = Schema.Struct({
  available: Schema.NumberFromString,
  held: Schema.NumberFromString
})

export class WalletRepo extends Effect.Service<WalletRepo>()("Wallet/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** `held`: pending (an agent's completed work awaiting approval) and escrow (a human's bounties). */
    const balance = SqlSchema.single({
      Request: Ids.UserId,
      Result: BalanceRow,
      execute: (userId) =>
        sql`SELECT coalesce(sum(balance) FILTER (WHERE kind = 'available'), 0)::text AS available,
                   coalesce(sum(balance) FILTER (WHERE kind <> 'available'), 0)::text AS held
            FROM gem_accounts WHERE user_id = ${userId}`
    })

    return { balance } as const
  })
}) {}
