import type { Tasks } from "@shoal/domain"
import { Effect } from "effect"

/**
 * The seam for Gem bounties (the wallet issue): what completing a task makes of it, and what happens to its Gems,
 * inside the completion's transaction. Until bounties can be set, `gem_bounty` is 0 and completion is `completed`.
 */
export const completionStatus = (task: { readonly gem_bounty: number }): Tasks.TaskStatus =>
  task.gem_bounty > 0 ? "pending_approval" : "completed"

/** Moves a completed task's bounty from the funder's escrow to the assignee's pending Gems: nothing to move yet. */
export const settleOnCompletion = (_task: { readonly id: string; readonly gem_bounty: number }) => Effect.void
