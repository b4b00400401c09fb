import type { Auth, Ids, Tasks } from "@shoal/domain"
import { Errors, Ids as IdSchemas } from "@shoal/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { WalletClient } from "../Wallet/Client.js"

/**
 * Where tasks meet Gem bounties (CONTRACT "Bounties"): what completing a task makes of it, who may fund and approve,
 * and what happens to the Gems, inside the task's own transaction.
 */
export const completionStatus = (task: { readonly gem_bounty: number }): Tasks.TaskStatus =>
  task.gem_bounty > 0 ? "pending_approval" : "completed"

/** Statuses that burn a bounty still in escrow or pending. */
export const burns = (status: Tasks.TaskStatus) => status === "cancelled" || status === "archived"

/**
 * Whether a change to `status` owes the bounty a burn: cancelling or archiving, and also a task already cancelled or
 * archived that still shows a bounty, because the wallet (in its own process, burning after the task's commit) was
 * down when it was cancelled: the retried request burns it then.
 */
export const burnDue = (
  status: Tasks.TaskStatus,
  task: { readonly status: Tasks.TaskStatus; readonly gem_bounty: number }
) => burns(status) && (!burns(task.status) || task.gem_bounty > 0)

/**
 * With the wallet in its own process its funding cannot join the task's transaction, so it comes first, under the
 * id the task will then be inserted with: a wallet that is down (503) leaves nothing behind, and a task is never
 * visible without the Gems behind it. In one process the funding stays inside the task's transaction (undefined).
 */
export const prefund = (wallet: WalletClient["Type"], funder: Ids.UserId, amount: number) =>
  Effect.gen(function*() {
    if (wallet.local || amount <= 0) return undefined
    const id = IdSchemas.TaskId.make(randomUUID())
    yield* wallet.fund(id, funder, amount)
    return id
  })

/**
 * The task's transaction, undoing a `prefund` if it fails: the Gems minted for a task that was never committed are
 * burned again (`fund` to 0, acting only on what it finds). Should the wallet be unreachable for that too, the
 * wallet's sweeper burns an escrow whose task never appeared.
 */
export const unfundOnFailure =
  (wallet: WalletClient["Type"], id: Ids.TaskId | undefined, funder: Ids.UserId) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    id === undefined ? self : Effect.onError(self, () =>
      wallet.fund(id, funder, 0).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning("a prefunded bounty's task did not commit; unfunding failed", cause)
        )
      ))

/** Funding a bounty mints Gems: a human's path only. */
export const requireFunder = (caller: Auth.Principal) =>
  caller.userType === "human"
    ? Effect.void
    : Effect.fail(
      new Errors.Forbidden({ message: "only a human can set a gem_bounty", details: { field: "gem_bounty" } })
    )

/** Completion moves the bounty from escrow to the pending Gems of the assignee (or of whoever completed it). */
export const settleOnCompletion = (
  wallet: WalletClient["Type"],
  task: { readonly id: Ids.TaskId; readonly gem_bounty: number; readonly assigned_to_id: Ids.UserId | null },
  caller: Auth.Principal
) => task.gem_bounty > 0 ? wallet.toPending(task.id, task.assigned_to_id ?? caller.id) : Effect.void
