import type { Auth, Ids, Tasks } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect } from "effect"
import { type AccessFacts, canManageProject } from "../Projects/Policy.js"

/**
 * Who may do what with a task (CONTRACT "Who may do what"). The project's owner and managers, and the human who
 * owns that owner, run its tasks; a plain member works on its own; a bounty's Gems are its funder's to decide.
 */
export interface TaskFacts extends AccessFacts {
  readonly id: Ids.TaskId
  readonly status: Tasks.TaskStatus
  readonly assigned_to_id: Ids.UserId | null
  readonly gem_bounty: number
  readonly funder_id: Ids.UserId | null
  readonly bounty_state: string | null
}

const hasBounty = (task: { readonly gem_bounty: number }) => task.gem_bounty > 0

const isFunder = (caller: Auth.Principal, task: TaskFacts) => task.funder_id !== null && task.funder_id === caller.id

const forbidden = (message: string) => Effect.fail(new Errors.Forbidden({ message }))

/** Only the assignee completes a task; a gig (unassigned, with a bounty) is taken through apply → accept first. */
export const requireCompleter = (caller: Auth.Principal, task: TaskFacts) =>
  task.assigned_to_id === caller.id
    ? Effect.void
    : task.assigned_to_id === null && hasBounty(task)
    ? Effect.fail(
      new Errors.Conflict({
        message: `the task is an open gig: apply first (POST /api/gigs/${task.id}/apply), and complete it once the ` +
          "project's owner accepts you"
      })
    )
    : forbidden(
      task.assigned_to_id === null
        ? "only the task's assignee can complete it: take it first (update with assign_to: \"me\")"
        : "only the task's assignee can complete it"
    )

/**
 * Assigning to `assignee` (`null`: unassigning). Managers assign anyone; a member takes an unassigned task without a
 * bounty, or repeats its own assignment (what the OpenClaw channel sends with every status update): a no-op.
 */
export const requireAssign = (caller: Auth.Principal, task: TaskFacts, assignee: Ids.UserId | null) => {
  if (assignee === task.assigned_to_id || canManageProject(task)) return Effect.void
  if (assignee === caller.id && task.assigned_to_id === null && !hasBounty(task)) return Effect.void
  if (assignee === caller.id && task.assigned_to_id === null) {
    return forbidden(`the task has a Gem bounty: apply for it first (POST /api/gigs/${task.id}/apply)`)
  }
  return forbidden("only the project's owner or a manager can assign or reassign its tasks")
}

/**
 * Changing the status: managers any task, a member only a task assigned to it (or that it takes in the same call),
 * and never to cancel or archive one carrying a bounty (that burns Gems that are not the member's).
 */
export const requireStatusChange = (
  caller: Auth.Principal,
  task: TaskFacts,
  status: Tasks.TaskStatus,
  assignee: Ids.UserId | null
) => {
  if (status === task.status) return Effect.void
  const closing = status === "cancelled" || status === "archived"
  if (closing && hasBounty(task)) {
    const verb = status === "cancelled" ? "cancel" : "archive"
    // pending Gems (the work is done) are the assignee's earnings awaiting the funder: burning them is its call only
    if (task.bounty_state === "pending" || task.status === "pending_approval") {
      return isFunder(caller, task)
        ? Effect.void
        : forbidden(`the task's bounty awaits approval: only its funder can ${verb} it`)
    }
    // escrowed Gems are the funder's: a member closing its own bounty task would burn them
    return isFunder(caller, task) || canManageProject(task)
      ? Effect.void
      : forbidden(`the task carries a Gem bounty: only the project's owner, a manager or its funder can ${verb} it`)
  }
  if (canManageProject(task) || assignee === caller.id) return Effect.void
  return forbidden("only the project's owner or a manager can change the status of a task not assigned to you")
}

/** Moving to another project: managers of the source; a bounty task only by its funder, into a project it owns. */
export const requireMove = (caller: Auth.Principal, task: TaskFacts, destination: AccessFacts) =>
  !canManageProject(task)
    ? forbidden("only the project's owner or a manager can move its tasks")
    : canMoveBounty(caller, task, destination)
    ? Effect.void
    : Effect.fail(bountyMoveConflict(1))

/** A bounty stays in its project unless its funder moves it into a project the funder owns (or owns the owner of). */
export const canMoveBounty = (
  caller: Auth.Principal,
  task: { readonly gem_bounty: number; readonly funder_id: Ids.UserId | null },
  destination: AccessFacts
) =>
  !hasBounty(task) ||
  (task.funder_id === caller.id && (destination.caller_role === "owner" || destination.owns_owner))

export const bountyMoveConflict = (count: number) =>
  new Errors.Conflict({
    message: `${
      count === 1 ? "the task has" : `${count} tasks have`
    } a Gem bounty: it stays in its project unless its funder moves it into a project the funder owns`,
    details: { bounty_tasks: count }
  })

/** Changing a bounty that has a funder: that funder only (another human would burn the funder's escrow). */
export const requireBountyChange = (caller: Auth.Principal, task: TaskFacts) =>
  task.funder_id === null || !hasBounty(task) || isFunder(caller, task)
    ? Effect.void
    : forbidden("only the bounty's funder can change it")

/** Approving or rejecting a completion: the bounty's funder (the human whose escrow held the Gems) only. */
export const requireApprover = (caller: Auth.Principal, task: TaskFacts) =>
  caller.userType === "human" && (isFunder(caller, task) || (task.funder_id === null && canManageProject(task)))
    ? Effect.void
    : forbidden("only the bounty's funder approves or rejects the task")
