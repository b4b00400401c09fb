import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Option, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"
import type { Movement } from "./Ledger.js"

export type UserAccountKind = "available" | "pending" | "escrow"
export type SystemAccountKind = "mint" | "burn" | "expiry"
/** A user's account, or a system account (user null). */
export interface AccountRef {
  readonly user: Ids.UserId | null
  readonly kind: UserAccountKind | SystemAccountKind
}

interface MovedRow {
  readonly transaction_id: Ids.LedgerTransactionId | null
  readonly user_id: Ids.UserId | null
  readonly kind: string
  /** null: the leg was refused (it would have taken the account below zero) */
  readonly balance: number | null
}

export const AccountRow = Schema.Struct({
  kind: Schema.Literal("available", "pending", "escrow"),
  balance: Schema.NumberFromString,
  credited: Schema.NumberFromString,
  debited: Schema.NumberFromString
})

export const EntryRow = Schema.Struct({
  id: Ids.LedgerTransactionId,
  amount: Schema.NumberFromString,
  source: Schema.String,
  reference_id: Schema.NullOr(Schema.String),
  note: Schema.NullOr(Schema.String),
  created_at: IsoFromDate
})

/** A movement as posted at `now`: its legs one per account, amounts non-zero and summing to zero. */
export type Posting = Movement & { readonly now: Date }

// the move's text per shape (which legs are system accounts), built once; see LedgerRepo.move
const moveTexts = new Map<string, string>()

const moveText = (legs: Posting["legs"]): string => {
  let n = 0
  const next = () => `$${++n}`
  const locked = legs.map(({ account }) =>
    account.user === null ? `(user_id IS NULL AND kind = ${next()})` : `(user_id = ${next()} AND kind = ${next()})`
  ).join(" OR ")
  const values = legs.map(() => `(${next()}::uuid, ${next()}::text, ${next()}::bigint)`).join(", ")
  return `WITH l AS (
      SELECT id, user_id, kind FROM gem_accounts WHERE ${locked} ORDER BY id FOR UPDATE),
    d (user_id, kind, amount) AS (VALUES ${values}),
    j AS (SELECT l.id, d.amount FROM l JOIN d ON l.user_id IS NOT DISTINCT FROM d.user_id AND l.kind = d.kind),
    upd AS (
      UPDATE gem_accounts a SET balance = a.balance + j.amount,
        credited = a.credited + greatest(j.amount, 0), debited = a.debited + greatest(-j.amount, 0)
      FROM j WHERE (SELECT count(*) FROM l) = ${next()} AND a.id = j.id AND (a.kind = 'mint' OR a.balance + j.amount >= 0)
      RETURNING a.id, a.balance, j.amount),
    t AS (
      INSERT INTO gem_transactions (source, actor_id, reference_id, note, created_at)
      SELECT ${next()}, ${next()}, ${next()}, ${next()}, ${next()} WHERE (SELECT count(*) FROM upd) = ${next()}
      RETURNING id, seq),
    e AS (INSERT INTO gem_entries (transaction_id, txn_seq, account_id, amount)
      SELECT t.id, t.seq, upd.id, upd.amount FROM t CROSS JOIN upd)
    SELECT (SELECT id FROM t) AS transaction_id, l.user_id, l.kind, upd.balance::text AS balance
    FROM l LEFT JOIN upd ON upd.id = l.id`
}

/** The move's text and its parameters, in the text's order. */
const moveStatement = (p: Posting): readonly [string, Array<unknown>] => {
  const shape = p.legs.map(({ account }) => (account.user === null ? "s" : "u")).join("")
  let text = moveTexts.get(shape)
  if (text === undefined) moveTexts.set(shape, text = moveText(p.legs))
  const params: Array<unknown> = []
  for (const { account } of p.legs) {
    if (account.user !== null) params.push(account.user)
    params.push(account.kind)
  }
  for (const { account, amount } of p.legs) params.push(account.user, account.kind, amount)
  params.push(p.legs.length, p.source, p.actorId, p.referenceId ?? null, p.note ?? null, p.now, p.legs.length)
  return [text, params]
}

/** A row as the driver returns it, its balance bigint text. */
const movedRow = (r: Omit<MovedRow, "balance"> & { readonly balance: string | null }): MovedRow => ({
  ...r,
  balance: r.balance === null ? null : Number(r.balance)
})

/** The ledger's SQL: lock accounts in id order and apply a movement conditionally, read balances and entries. */
export class LedgerRepo extends Effect.Service<LedgerRepo>()("Wallet/LedgerRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * One statement, one round trip (the accounts' row locks are then held for one round trip less): `l` locks the
     * movement's accounts in id order, so two movements over the same accounts (A→B beside B→A) wait for each
     * other instead of deadlocking, and the caller's transaction holds the locks to its end; every leg is then
     * applied only if it leaves its account at zero or above (mint excepted), and the transaction with its entries
     * written only if every leg applied. `(SELECT count(*) FROM l)` is a one-time filter evaluated before the
     * update touches any row, so every lock is taken, in order, first. One row per account found: `balance` null
     * for a leg refused (`transaction_id` is then null; the caller fails and its transaction rolls back whatever
     * legs did apply). An account that does not exist has no row.
     *
     * Text built once per shape, values bound, rows mapped by hand, on the transaction's connection: the statement
     * builder's per-call work shows in a transfer's CPU (bench/README.md, "wallet"). As a transaction's first
     * statement on a server it goes pipelined with the held-back BEGIN (src/Database/LazyBegin.ts).
     */
    const move = (p: Posting) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (tx) => {
        if (Option.isNone(tx)) return Effect.dieMessage("LedgerRepo.move runs inside the caller's transaction")
        const [text, params] = moveStatement(p)
        return Effect.map(tx.value[0].execute(text, params as Array<any>, undefined), (rows) => rows.map(movedRow))
      })

    const accounts = SqlSchema.findAll({
      Request: Ids.UserId,
      Result: AccountRow,
      execute: (user) =>
        sql`SELECT kind, balance::text AS balance, credited::text AS credited, debited::text AS debited
            FROM gem_accounts WHERE user_id = ${user}`
    })

    const available = (user: Ids.UserId) =>
      sql`SELECT e.txn_seq AS seq, e.amount, t.source
          FROM gem_entries e JOIN gem_transactions t ON t.id = e.transaction_id
          WHERE e.account_id = (SELECT id FROM gem_accounts WHERE user_id = ${user} AND kind = 'available')`

    /** A page of `movements` (seq, amount, source), newest first, and how many there are. */
    const page = (movements: Statement.Fragment, limit: number, offset: number) =>
      Effect.gen(function*() {
        const rows = yield* SqlSchema.findAll({
          Request: Schema.Void,
          Result: EntryRow,
          execute: () =>
            sql`SELECT t.id, m.amount::text AS amount, m.source, t.reference_id, t.note, t.created_at
                FROM (${movements}) m JOIN gem_transactions t ON t.seq = m.seq
                ORDER BY m.seq DESC LIMIT ${limit} OFFSET ${offset}`
        })(undefined)
        const [count] = yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM (${movements}) m`
        return { rows, total: Number(count!.n) }
      })

    /**
     * A human's movements (CONTRACT "Owners' ledger and reads"): its available account's entries as above, and
     * the Gems it puts out, each `spent` (negative) with its kind as `source`: bounties it funds (mint → its escrow),
     * its awards (mint → an agent, it the actor), its bounties released to their assignee on approval, and burned
     * (from its escrow or an assignee's pending: cancelled, removed, lowered or expired). A bounty's completion
     * and rejection move its Gems between its escrow and the assignee's pending: still its bounty, not listed.
     */
    const owned = (user: Ids.UserId) => {
      const escrow = sql`(SELECT id FROM gem_accounts WHERE user_id = ${user} AND kind = 'escrow')`
      return sql`
          ${available(user)}
          UNION ALL
          SELECT e.txn_seq, -abs(e.amount), CASE WHEN e.amount > 0 THEN 'bounty_funding' ELSE 'bounty_burn' END
          FROM gem_entries e JOIN gem_transactions t ON t.id = e.transaction_id
          WHERE e.account_id = ${escrow} AND t.source IN ('bounty_funded', 'bounty_changed', 'bounty_cancelled')
          UNION ALL
          SELECT t.seq, -e.amount, 'award'
          FROM gem_transactions t JOIN gem_entries e ON e.transaction_id = t.id AND e.amount > 0
          WHERE t.source = 'award' AND t.actor_id = ${user}
          UNION ALL
          SELECT t.seq, -e.amount, CASE WHEN t.source = 'task_completion' THEN 'bounty_release' ELSE 'bounty_burn' END
          FROM gem_bounties b
          JOIN gem_transactions t ON t.reference_id = b.task_id::text
            AND t.source IN ('task_completion', 'bounty_cancelled', 'bounty_expired')
          JOIN gem_entries e ON e.transaction_id = t.id AND e.amount > 0
          WHERE b.funder_id = ${user}
            AND NOT EXISTS (SELECT 1 FROM gem_entries x WHERE x.transaction_id = t.id AND x.account_id = ${escrow})`
    }

    return {
      move: (p: Posting) => Effect.orDie(move(p)),
      accounts: (user: Ids.UserId) => Effect.orDie(accounts(user)),
      /** A page of the user's available-account entries. */
      entries: (user: Ids.UserId, limit: number, offset: number) => Effect.orDie(page(available(user), limit, offset)),
      ownerEntries: (user: Ids.UserId, limit: number, offset: number) => Effect.orDie(page(owned(user), limit, offset))
    } as const
  })
}) {}
