import type { Auth, Ids, Tasks } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect } from "effect"
import type { WalletClient } from "../Wallet/Client.js"

/**
 * Where tasks meet Gem bounties (CONTRACT "Bounties"): what completing a task makes of it, who may fund and approve,
 * and what happens to the Gems, inside the task's own transaction.
 */
export const completionStatus = (task: { readonly gem_bounty: number }): Tasks.TaskStatus =>
  task.gem_bounty > 0 ? "pending_approval" : "completed"

/** Statuses that burn a bounty still in escrow or pending. */
export const burns = (status: Tasks.TaskStatus) => status === "cancelled" || status === "archived"

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
