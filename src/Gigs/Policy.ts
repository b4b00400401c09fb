import type { Tasks } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect } from "effect"

/** A gig takes applications and acceptances while it has a bounty, no assignee, and is not finished or closed. */
export const OPEN_STATUSES: ReadonlyArray<Tasks.TaskStatus> = ["pending", "in_progress", "review"]

/** Accepting an application: 409 once the gig is cancelled, completed (or archived) or has an assignee. */
export const requireAcceptable = (
  task: { readonly status: Tasks.TaskStatus; readonly assigned_to_id: string | null; readonly gem_bounty: number }
) =>
  task.assigned_to_id !== null
    ? Effect.fail(new Errors.Conflict({ message: "this gig already has an assignee" }))
    : !OPEN_STATUSES.includes(task.status) || task.gem_bounty <= 0
    ? Effect.fail(
      new Errors.Conflict({
        message: `this gig is no longer open (the task is ${
          task.gem_bounty <= 0 ? "without a bounty" : task.status.replace("_", " ")
        }): it accepts no applications`
      })
    )
    : Effect.void
