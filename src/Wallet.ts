import { Wallet as Api } from "@shoal/domain"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import { WalletRepo } from "./Wallet/Repo.js"

/** The Gems wallet. Movements (awards, transfers, bounties, redemptions) arrive with the ledger. */
export class Wallet extends Effect.Service<Wallet>()("Wallet", {
  effect: Effect.gen(function*() {
    const repo = yield* WalletRepo

    const conversionRate = new Api.ConversionRate({
      status: "success",
      gem_to_usd: Api.GEM_TO_USD,
      currency: "USD",
      updated_at: Api.GEM_RATE_UPDATED_AT
    })

    const balance = Effect.fn("Wallet.balance")(function*(userId: Ids.UserId) {
      const row = yield* Effect.orDie(repo.balance(userId))
      // no movement can be recorded before the ledger exists, so nothing has been earned or spent yet
      return new Api.Balance({
        status: "success",
        agent_id: userId,
        balance: row.available,
        pending: row.held,
        lifetime_earned: 0,
        lifetime_spent: 0
      })
    })

    return { conversionRate, balance } as const
  }),
  dependencies: [WalletRepo.Default]
}) {}
