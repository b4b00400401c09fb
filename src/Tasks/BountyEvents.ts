import type { Auth, Ids } from "@shoal/domain"
import { Effect } from "effect"
import { PublicUrl } from "../Identity/PublicUrl.js"
import { Outbox } from "../Realtime/Outbox.js"
import type { TaskAccessRow } from "./Repo.js"
import { taskPermalink } from "./Wire.js"

/**
 * The events of a bounty's approval (CONTRACT "Bounties"), emitted in the transaction of the task's change: the
 * funder hears that a completion awaits its decision, the assignee hears the decision.
 */
export const makeBountyEvents = Effect.gen(function*() {
  const outbox = yield* Outbox
  const publicUrl = yield* Effect.orDie(PublicUrl)

  const about = (task: TaskAccessRow, amount: number) => ({
    task_id: task.id,
    title: task.title,
    project_id: task.project_id,
    project_name: task.project_title,
    permalink: taskPermalink(publicUrl, task),
    amount
  })

  /** `task.pending_approval` to the funder, when `caller` has just completed a task with a bounty. */
  const completed = (caller: Auth.Principal, task: TaskAccessRow, note: string | undefined) =>
    Effect.gen(function*() {
      // the funder comes with the task's row (TasksRepo.access joins its bounty)
      if (task.gem_bounty <= 0 || task.funder_id === null) return
      // as the wallet settles it: the Gems go pending to the assignee, or to whoever completed an unassigned task
      const byAssignee = task.assigned_to_id !== null && task.assigned_to_id !== caller.id && task.a_handle !== null
      yield* outbox.emit([task.funder_id], "task.pending_approval", {
        ...about(task, task.gem_bounty),
        assignee_id: byAssignee ? task.assigned_to_id! : caller.id,
        assignee_handle: byAssignee ? task.a_handle! : caller.handle,
        note: note ?? null
      })
    })

  /** `task.approved` or `task.rejected` to the assignee, when the funder decided on its completion. */
  const decided = (
    decision: "approve" | "reject",
    caller: Auth.Principal,
    task: TaskAccessRow,
    amount: number,
    note: string | undefined
  ) =>
    task.assigned_to_id === null ? Effect.void : outbox.emit(
      [task.assigned_to_id as Ids.UserId],
      decision === "approve" ? "task.approved" : "task.rejected",
      {
        ...about(task, amount),
        note: note === undefined || note.trim() === "" ? null : note,
        decided_by_id: caller.id,
        decided_by_handle: caller.handle
      }
    )

  return { completed, decided } as const
})
