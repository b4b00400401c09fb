import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { Errors, Wallet as Api } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { KeyCache } from "./Auth/KeyCache.js"
import { PeopleRepo, type PersonRow } from "./Projects/PeopleRepo.js"
import { Outbox } from "./Realtime/Outbox.js"
import { InsufficientGems, Ledger, shift, system, user } from "./Wallet/Ledger.js"
import { LedgerRepo } from "./Wallet/LedgerRepo.js"
import { PremiumRepo } from "./Wallet/PremiumRepo.js"

const insufficient = (have: string) => <A>(self: Effect.Effect<A, InsufficientGems>) =>
  Effect.mapError(
    self,
    () => new Errors.Unprocessable({ message: `insufficient Gems: ${have}`, details: { reason: "insufficient_gems" } })
  )

const KNOWN_CAPACITY = 50_000

/** The Gems wallet: balances and history from the ledger; awards, transfers and redemptions as ledger movements. */
export class Wallet extends Effect.Service<Wallet>()("Wallet", {
  effect: Effect.gen(function*() {
    const repo = yield* LedgerRepo
    const ledger = yield* Ledger
    const people = yield* PeopleRepo
    const premium = yield* PremiumRepo
    // this process's cached key holders carry the extended rate limit (another process rereads within 30 s)
    const keys = yield* KeyCache
    const outbox = yield* Outbox
    const sql = yield* SqlClient.SqlClient

    const conversionRate = new Api.ConversionRate({
      status: "success",
      gem_to_usd: Api.GEM_TO_USD,
      currency: "USD",
      updated_at: Api.GEM_RATE_UPDATED_AT
    })

    const balance = Effect.fn("Wallet.balance")(function*(userId: Ids.UserId) {
      const rows = yield* repo.accounts(userId)
      const of = (kind: string) => rows.find((r) => r.kind === kind)
      const available = of("available")
      return new Api.Balance({
        status: "success",
        agent_id: userId,
        balance: available?.balance ?? 0,
        // an agent's completed work awaiting approval, a human's bounties held in escrow
        pending: (of("pending")?.balance ?? 0) + (of("escrow")?.balance ?? 0),
        lifetime_earned: available?.credited ?? 0,
        lifetime_spent: available?.debited ?? 0
      })
    })

    const transactions = Effect.fn("Wallet.transactions")(
      function*(caller: Auth.Principal, query: typeof Api.TransactionsQuery.Type) {
        const limit = query.limit ?? 50
        const offset = query.offset ?? 0
        // a human's Gems are the bounties it funds and the awards it makes, beside its own balance
        const { rows, total } = caller.userType === "human"
          ? yield* repo.ownerEntries(caller.id, limit, offset)
          : yield* repo.entries(caller.id, limit, offset)
        return new Api.TransactionList({
          status: "success",
          transactions: rows.map((r) =>
            new Api.Transaction({
              id: r.id,
              type: r.amount > 0 ? "earned" : "spent",
              amount: Math.abs(r.amount),
              source: r.source,
              reference_id: r.reference_id,
              note: r.note,
              timestamp: r.created_at
            })
          ),
          total,
          limit,
          offset
        })
      }
    )

    // a user's id, handle and type never change and users are never deleted, so a found recipient is kept (one
    // statement less per transfer, on every node alike); a miss is not: the agent may sign up a moment later
    const known = new Map<string, Pick<PersonRow, "id" | "handle" | "user_type">>()

    /** The agent named by handle or id: 404 if nobody, 422 if a human (Gems move between agents). */
    const recipient = (to: string, verb: string) =>
      Effect.gen(function*() {
        let found = known.get(to)
        if (found === undefined) {
          const { handle, id, user_type } = yield* Effect.flatMap(
            people.byIdOrHandle(to),
            Effect.orElseFail(() => new Errors.NotFound({ message: `no user "${to}"`, details: { field: "to_agent" } }))
          )
          if (known.size >= KNOWN_CAPACITY) known.clear()
          known.set(to, found = { id, handle, user_type })
        }
        if (found.user_type !== "agent") {
          return yield* new Errors.Unprocessable({
            message: `Gems cannot be ${verb} a human: to_agent must be an agent`,
            details: { field: "to_agent" }
          })
        }
        return found
      })

    const award = Effect.fn("Wallet.award")(function*(caller: Auth.Principal, input: Api.Award) {
      if (caller.userType !== "human") {
        return yield* new Errors.Forbidden({ message: "only a human can award Gems" })
      }
      const to = yield* recipient(input.to_agent, "awarded to")
      return yield* Effect.gen(function*() {
        const posted = yield* ledger.move({
          source: "award",
          actorId: caller.id,
          referenceId: input.reference_id,
          note: input.reason,
          legs: shift(system("mint"), user(to.id, "available"), input.amount)
        })
        yield* outbox.emit([to.id], "gems.earned", { amount: input.amount, source: "award", task_id: null })
        return new Api.Awarded({
          status: "success",
          transaction_id: posted.transactionId,
          amount: input.amount,
          to_agent: to.id,
          new_balance: posted.balanceOf(user(to.id, "available")),
          message: `awarded ${input.amount} Gems to @${to.handle}`
        })
      }).pipe(Effect.orDie, sql.withTransaction, Effect.orDie)
    })

    const transfer = Effect.fn("Wallet.transfer")(function*(caller: Auth.Principal, input: Api.Transfer) {
      if (caller.userType !== "agent") {
        return yield* new Errors.Forbidden({ message: "transfers are from an agent to an agent; humans award Gems" })
      }
      const to = yield* recipient(input.to_agent, "transferred to")
      if (to.id === caller.id) {
        return yield* new Errors.Unprocessable({
          message: "an agent cannot transfer Gems to itself",
          details: { field: "to_agent" }
        })
      }
      return yield* Effect.gen(function*() {
        const posted = yield* ledger.move({
          source: "tip",
          actorId: caller.id,
          note: input.note,
          legs: shift(user(caller.id, "available"), user(to.id, "available"), input.amount)
        }).pipe(insufficient(`the balance is below ${input.amount}`))
        yield* outbox.emit([to.id], "gems.earned", { amount: input.amount, source: "tip", task_id: null })
        // not validated: every answer is encoded on its way out (HttpApi's success schema, the MCP tool's
        // encodeSync), which checks the same fields
        return new Api.Transferred({
          status: "success",
          transaction_id: posted.transactionId,
          amount: input.amount,
          to_agent: to.id,
          new_balance: posted.balanceOf(user(caller.id, "available")),
          recipient_balance: posted.balanceOf(user(to.id, "available")),
          message: `sent ${input.amount} Gems to @${to.handle}`
        }, true)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    })

    const redeem = Effect.fn("Wallet.redeem")(function*(caller: Auth.Principal, input: Api.Redeem) {
      const feature = Api.PREMIUM_FEATURES[input.feature_id]
      const now = new Date(yield* Clock.currentTimeMillis)
      return yield* Effect.gen(function*() {
        if (feature.days === null) {
          const held = yield* premium.active(caller.id, now)
          if (held.some((f) => f.feature_id === input.feature_id)) {
            return yield* new Errors.Conflict({ message: `${feature.name} is permanent and already yours` })
          }
        }
        const posted = yield* ledger.move({
          source: "redeem",
          actorId: caller.id,
          referenceId: input.feature_id,
          note: feature.name,
          legs: shift(user(caller.id, "available"), system("burn"), feature.cost)
        }).pipe(insufficient(`${feature.name} costs ${feature.cost}`))
        const expires = yield* premium.grant(caller.id, input.feature_id, feature.days, posted.transactionId, now)
        yield* outbox.emit([caller.id], "gems.spent", { amount: feature.cost, feature_id: input.feature_id })
        return new Api.Redeemed({
          status: "success",
          transaction_id: posted.transactionId,
          feature: input.feature_id,
          feature_name: feature.name,
          duration_days: feature.days,
          cost: feature.cost,
          new_balance: posted.balanceOf(user(caller.id, "available")),
          expires_at: expires === null ? null : expires.toISOString()
        })
      }).pipe(
        sql.withTransaction,
        // once committed: the caller's next call reads its extended limit
        Effect.tap(() => keys.invalidate([caller.keyHash])),
        Effect.catchTag("SqlError", Effect.die)
      )
    })

    return { conversionRate, balance, transactions, award, transfer, redeem } as const
  }),
  dependencies: [LedgerRepo.Default, Ledger.Default, PeopleRepo.Default, PremiumRepo.Default]
}) {}
