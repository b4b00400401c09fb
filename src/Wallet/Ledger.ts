import type { Ids } from "@shoal/domain"
import { Clock, Data, Effect, FiberRef } from "effect"
import { currentTouched } from "./BalanceChanges.js"
import { type AccountRef, LedgerRepo, type SystemAccountKind, type UserAccountKind } from "./LedgerRepo.js"

/** A leg refused: it would have taken the account below zero. */
export class InsufficientGems extends Data.TaggedError("InsufficientGems")<{ readonly account: AccountRef }> {}

export interface Movement {
  /** what the movement is for: award, tip, redeem, bounty_funded, task_completion, … */
  readonly source: string
  readonly actorId: Ids.UserId | null
  readonly referenceId?: string | null | undefined
  readonly note?: string | null | undefined
  /** amounts per account; they must sum to zero */
  readonly legs: ReadonlyArray<{ readonly account: AccountRef; readonly amount: number }>
}

export interface Posted {
  readonly transactionId: Ids.LedgerTransactionId
  /** the balance of an account the movement touched, after it */
  readonly balanceOf: (account: AccountRef) => number
}

const keyOf = (a: { readonly user_id?: string | null; readonly user?: string | null; readonly kind: string }) =>
  `${a.user ?? a.user_id ?? "system"}/${a.kind}`

export const user = (id: Ids.UserId, kind: UserAccountKind): AccountRef => ({ user: id, kind })
export const system = (kind: SystemAccountKind): AccountRef => ({ user: null, kind })

/** A movement's legs for `amount` out of `from` into `to`. */
export const shift = (from: AccountRef, to: AccountRef, amount: number) => [
  { account: from, amount: -amount },
  { account: to, amount }
]

/**
 * The double-entry ledger: one movement = one ledger transaction whose entries sum to zero. It runs in the
 * caller's database transaction (the service that opened it), which it requires: one statement locks the accounts in
 * id order and applies every leg conditionally or refuses, so no balance goes negative whatever runs beside it.
 */
export class Ledger extends Effect.Service<Ledger>()("Wallet/Ledger", {
  effect: Effect.gen(function*() {
    const repo = yield* LedgerRepo

    const move = (m: Movement): Effect.Effect<Posted, InsufficientGems> =>
      Effect.gen(function*() {
        // one leg per account, zero legs dropped, and the sum checked before anything is written
        const byKey = new Map<string, { account: AccountRef; amount: number }>()
        for (const leg of m.legs) {
          if (!Number.isSafeInteger(leg.amount)) return yield* Effect.dieMessage(`not a whole Gem: ${leg.amount}`)
          const k = keyOf(leg.account)
          const prev = byKey.get(k)
          byKey.set(k, { account: leg.account, amount: (prev?.amount ?? 0) + leg.amount })
        }
        const legs = [...byKey.values()].filter((l) => l.amount !== 0)
        if (legs.reduce((s, l) => s + l.amount, 0) !== 0) {
          return yield* Effect.dieMessage(`ledger legs of ${m.source} do not sum to zero`)
        }
        if (legs.length === 0) return yield* Effect.dieMessage(`empty movement ${m.source}`)
        const now = new Date(yield* Clock.currentTimeMillis)
        const moved = yield* repo.move({ ...m, now, legs })
        const rows = new Map(moved.map((r) => [keyOf(r), r]))
        if (legs.some((l) => !rows.has(keyOf(l.account)))) {
          return yield* Effect.dieMessage(`no such Gems account in ${m.source}`)
        }
        const transactionId = moved[0]?.transaction_id ?? null
        if (transactionId === null) {
          const refused = legs.find((l) => rows.get(keyOf(l.account))!.balance === null)
          if (refused === undefined) return yield* Effect.dieMessage(`${m.source} neither applied nor refused`)
          return yield* new InsufficientGems({ account: refused.account })
        }
        const touched = yield* FiberRef.get(currentTouched)
        if (touched !== undefined) { for (const r of moved) if (r.user_id !== null) touched.add(r.user_id) }
        return {
          transactionId,
          balanceOf: (a: AccountRef) => rows.get(keyOf(a))?.balance ?? 0
        }
      })

    return { move } as const
  }),
  dependencies: [LedgerRepo.Default]
}) {}
