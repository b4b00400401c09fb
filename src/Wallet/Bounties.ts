import type { Ids } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { DateTime, Effect } from "effect"
import { Outbox } from "../Realtime/Outbox.js"
import { BountiesRepo, type BountyRow } from "./BountiesRepo.js"
import { Ledger, shift, system, user } from "./Ledger.js"
import type { AccountRef } from "./LedgerRepo.js"

/** Pending Gems not approved within this long are burned (to the expiry account). */
export const PENDING_EXPIRY_MS = 30 * 24 * 60 * 60_000

/** How long a bounty funded ahead of its task (over RPC) may wait for that task to commit before it is burned. */
export const STRANDED_AFTER_MS = 10 * 60_000

/**
 * Task bounties on the ledger (CONTRACT "Bounties"): funding mints into the funder's escrow, completion moves them
 * to the assignee's pending, approval to its balance, rejection back to escrow, cancellation burns them and 30
 * days pending expires them. Every method runs in the caller's transaction, after the task row is locked, and acts
 * only from the state it finds there, so a retried or concurrent call moves nothing twice.
 */
export class Bounties extends Effect.Service<Bounties>()("Wallet/Bounties", {
  effect: Effect.gen(function*() {
    const repo = yield* BountiesRepo
    const ledger = yield* Ledger
    const outbox = yield* Outbox

    const move = (m: Parameters<typeof ledger.move>[0]) => Effect.orDie(ledger.move(m))

    /** The pending bounty of `row` out of its assignee's pending, to `to` (approval, rejection, expiry). */
    const fromPending = (row: BountyRow, to: AccountRef, source: string, actorId: Ids.UserId | null, note?: string) => {
      const legs = shift(user(row.assignee_id!, "pending"), to, row.amount)
      return move({ source, actorId, referenceId: row.task_id, note, legs })
    }

    /** Sets the task's bounty to `amount` (0 removes it) funded by `funder`; 409 once it left escrow. */
    const fund = (task: Ids.TaskId, funder: Ids.UserId, amount: number) =>
      Effect.gen(function*() {
        const row = yield* repo.lock(task)
        const held = row?.state === "escrow" ? row : undefined
        if (row !== undefined && (row.state === "pending" || row.state === "paid" || row.state === "expired")) {
          return yield* new Errors.Conflict({
            message: `the bounty can no longer be changed: it is ${
              row.state === "pending" ? "awaiting approval" : row.state
            }`,
            details: { field: "gem_bounty" }
          })
        }
        if ((held?.amount ?? 0) === amount && (held === undefined || held.funder_id === funder)) return
        // one movement: the old bounty leaves its funder's escrow (burned), the new one is minted into the funder's
        const legs = [
          ...(held !== undefined ? shift(user(held.funder_id, "escrow"), system("burn"), held.amount) : []),
          ...(amount > 0 ? shift(system("mint"), user(funder, "escrow"), amount) : [])
        ]
        yield* move({
          source: held === undefined ? "bounty_funded" : "bounty_changed",
          actorId: funder,
          referenceId: task,
          legs
        })
        yield* repo.put({
          task_id: task,
          funder_id: amount > 0 ? funder : held!.funder_id,
          amount: amount > 0 ? amount : held!.amount,
          state: amount > 0 ? "escrow" : "burned",
          assignee_id: null,
          pending_since: null
        }, yield* DateTime.nowAsDate)
        yield* repo.setTaskBounty(task, amount)
      })

    /** Completion: escrow → the assignee's pending, `gems.pending`. Nothing if the bounty is not in escrow. */
    const toPending = (task: Ids.TaskId, assignee: Ids.UserId) =>
      Effect.gen(function*() {
        const row = yield* repo.lock(task)
        if (row?.state !== "escrow") return
        yield* move({
          source: "bounty_pending",
          actorId: assignee,
          referenceId: task,
          legs: shift(user(row.funder_id, "escrow"), user(assignee, "pending"), row.amount)
        })
        const at = yield* DateTime.nowAsDate
        yield* repo.put({ ...row, state: "pending", assignee_id: assignee, pending_since: at }, at)
        yield* outbox.emit([assignee], "gems.pending", { amount: row.amount, task_id: task })
      })

    const pending = (task: Ids.TaskId) =>
      Effect.flatMap(repo.lock(task), (row) =>
        row?.state === "pending" && row.assignee_id !== null
          ? Effect.succeed(row as BountyRow & { readonly assignee_id: Ids.UserId })
          : Effect.fail(
            new Errors.Conflict({
              message: row?.state === "expired"
                ? "the bounty expired: it was pending for more than 30 days"
                : "the task's bounty is not awaiting approval"
            })
          ))

    /** Approval: the assignee's pending → its balance, `gems.earned`. */
    const approve = (task: Ids.TaskId, approver: Ids.UserId, note?: string) =>
      Effect.gen(function*() {
        const row = yield* pending(task)
        yield* fromPending(row, user(row.assignee_id, "available"), "task_completion", approver, note)
        yield* repo.put({ ...row, state: "paid" }, yield* DateTime.nowAsDate)
        yield* outbox.emit([row.assignee_id], "gems.earned", {
          amount: row.amount,
          source: "task_completion",
          task_id: task
        })
        return row.amount
      })

    /** Rejection: the assignee's pending → back to the funder's escrow. */
    const reject = (task: Ids.TaskId, rejecter: Ids.UserId, note?: string) =>
      Effect.gen(function*() {
        const row = yield* pending(task)
        yield* fromPending(row, user(row.funder_id, "escrow"), "bounty_rejected", rejecter, note)
        yield* repo.put({ ...row, state: "escrow", assignee_id: null, pending_since: null }, yield* DateTime.nowAsDate)
        return row.amount
      })

    /** A bounty in escrow or pending → burned, its task left without one. */
    const burnRow = (row: BountyRow, actor: Ids.UserId | null, at: Date) =>
      Effect.gen(function*() {
        const from = row.state === "escrow" ? user(row.funder_id, "escrow") : user(row.assignee_id!, "pending")
        yield* move({
          source: "bounty_cancelled",
          actorId: actor,
          referenceId: row.task_id,
          legs: shift(from, system("burn"), row.amount)
        })
        yield* repo.put({ ...row, state: "burned" }, at)
        yield* repo.setTaskBounty(row.task_id, 0)
      })

    /** Cancelling or archiving the task: its bounty, in escrow or pending, is burned. */
    const burn = (task: Ids.TaskId, actor: Ids.UserId) =>
      Effect.gen(function*() {
        const row = yield* repo.lock(task)
        if (row === undefined || (row.state !== "escrow" && row.state !== "pending")) return
        yield* burnRow(row, actor, yield* DateTime.nowAsDate)
      })

    /** Pending bounties older than 30 days (from their stored `pending_since`) → the expiry account; a batch. */
    const expireDue = (limit = 100) =>
      Effect.gen(function*() {
        const at = yield* DateTime.nowAsDate
        const due = yield* repo.due(new Date(at.getTime() - PENDING_EXPIRY_MS), limit)
        for (const row of due) {
          yield* fromPending(row, system("expiry"), "bounty_expired", null)
          yield* repo.put({ ...row, state: "expired" }, at)
          yield* repo.reopenExpired(row.task_id, at)
        }
        return due.length
      })

    /** Stranded bounties (`BountiesRepo.stranded`: no task after `STRANDED_AFTER_MS`, or a burn owed) burn; a batch. */
    const burnStranded = (limit = 100) =>
      Effect.gen(function*() {
        const at = yield* DateTime.nowAsDate
        const rows = yield* repo.stranded(new Date(at.getTime() - STRANDED_AFTER_MS), limit)
        for (const row of rows) yield* burnRow(row, null, at)
        return rows.length
      })

    return { fund, toPending, approve, reject, burn, expireDue, burnStranded } as const
  }),
  dependencies: [BountiesRepo.Default, Ledger.Default]
}) {}
