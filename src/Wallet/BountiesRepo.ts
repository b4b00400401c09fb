import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"

export const BountyRow = Schema.Struct({
  task_id: Ids.TaskId,
  funder_id: Ids.UserId,
  amount: Schema.NumberFromString,
  state: Schema.Literal("escrow", "pending", "paid", "burned", "expired"),
  assignee_id: Schema.NullOr(Ids.UserId),
  pending_since: Schema.NullOr(Schema.DateFromSelf)
})
export type BountyRow = typeof BountyRow.Type

const columns = "task_id, funder_id, amount::text AS amount, state, assignee_id, pending_since"

/** Where each task's bounty is; the task row is locked first, so changes to one task's bounty run one at a time. */
export class BountiesRepo extends Effect.Service<BountiesRepo>()("Wallet/BountiesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const lock = SqlSchema.findAll({
      Request: Ids.TaskId,
      Result: BountyRow,
      execute: (task) =>
        // the bounty is found even before its task exists: over RPC a task's bounty is funded first (Tasks/Bounty.ts)
        sql`WITH t AS (SELECT id FROM tasks WHERE id = ${task} FOR UPDATE)
            SELECT ${sql.literal(columns)} FROM gem_bounties
            WHERE task_id = ${task} AND (SELECT count(*) FROM t) >= 0 FOR UPDATE`
    })

    const put = (row: BountyRow, now: Date) =>
      sql`INSERT INTO gem_bounties (task_id, funder_id, amount, state, assignee_id, pending_since, updated_at)
          VALUES (${row.task_id}, ${row.funder_id}, ${row.amount}, ${row.state}, ${row.assignee_id},
            ${row.pending_since}, ${now})
          ON CONFLICT (task_id) DO UPDATE SET funder_id = excluded.funder_id, amount = excluded.amount,
            state = excluded.state, assignee_id = excluded.assignee_id, pending_since = excluded.pending_since,
            updated_at = excluded.updated_at`

    /** Pending bounties due to expire, skipping rows another node is sweeping right now. */
    const due = SqlSchema.findAll({
      Request: Schema.Struct({ before: Schema.DateFromSelf, limit: Schema.Number }),
      Result: BountyRow,
      execute: ({ before, limit }) =>
        sql`SELECT ${sql.literal(columns)} FROM gem_bounties
            WHERE state = 'pending' AND pending_since <= ${before}
            ORDER BY pending_since LIMIT ${limit} FOR UPDATE SKIP LOCKED`
    })

    /**
     * Bounties still held that no task will ever release: funded over RPC for a task that never committed (none
     * with its id, older than `before`), or whose task was cancelled or archived while the wallet was unreachable.
     */
    const stranded = SqlSchema.findAll({
      Request: Schema.Struct({ before: Schema.DateFromSelf, limit: Schema.Number }),
      Result: BountyRow,
      execute: ({ before, limit }) =>
        sql`SELECT ${sql.literal(columns)} FROM gem_bounties b
            WHERE state IN ('escrow', 'pending') AND (
              (updated_at <= ${before} AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = b.task_id))
              OR EXISTS (SELECT 1 FROM tasks t WHERE t.id = b.task_id AND t.status IN ('cancelled', 'archived')))
            ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`
    })

    /** An expired bounty's task leaves `pending_approval` (back in progress, without a bounty) instead of waiting forever. */
    const reopenExpired = (task: Ids.TaskId, now: Date) =>
      sql`UPDATE tasks SET gem_bounty = 0, status = 'in_progress', completed_at = NULL, updated_at = ${now}
          WHERE id = ${task} AND status = 'pending_approval'`

    const setTaskBounty = (task: Ids.TaskId, amount: number) =>
      sql`UPDATE tasks SET gem_bounty = ${amount} WHERE id = ${task}`

    return {
      lock: (task: Ids.TaskId) => Effect.map(Effect.orDie(lock(task)), (rows) => rows[0]),
      put: (row: BountyRow, now: Date) => Effect.orDie(put(row, now)),
      due: (before: Date, limit: number) => Effect.orDie(due({ before, limit })),
      stranded: (before: Date, limit: number) => Effect.orDie(stranded({ before, limit })),
      setTaskBounty: (task: Ids.TaskId, amount: number) => Effect.orDie(setTaskBounty(task, amount)),
      reopenExpired: (task: Ids.TaskId, now: Date) => Effect.orDie(reopenExpired(task, now))
    } as const
  })
}) {}
