import type { Auth, Ids } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect, Option } from "effect"
import { PublicUrl } from "../Identity/PublicUrl.js"
import { joinsBySelf } from "../Messages/Policy.js"
import { PeopleRepo, type PersonRow } from "../Projects/PeopleRepo.js"
import { ProjectsRepo } from "../Projects/Repo.js"
import { Outbox } from "../Realtime/Outbox.js"
import { NotesRepo } from "./NotesRepo.js"
import { nextDeadline } from "./Recurrence.js"
import { type TaskAccessRow, type TaskRow, TasksRepo } from "./Repo.js"
import { taskAssigned } from "./Wire.js"

export type AssigneeInput = {
  readonly assigned_to?: string | undefined
  readonly assign_to?: string | undefined
  readonly assigned_to_id?: Ids.UserId | null | undefined
}

/**
 * Who a task is assigned to, and what assigning it does: the assignee joins the project and hears of it. The next
 * occurrence of a completed recurring task is assigned again.
 */
export const makeAssignment = Effect.gen(function*() {
  const repo = yield* TasksRepo
  const notes = yield* NotesRepo
  const projects = yield* ProjectsRepo
  const people = yield* PeopleRepo
  const outbox = yield* Outbox
  const publicUrl = yield* Effect.orDie(PublicUrl)

  /** `undefined`: not named; `null`: unassign; else the user named by handle, `me` or id (404 if nobody). */
  const assigneeOf = (caller: Auth.Principal, input: AssigneeInput) =>
    Effect.gen(function*() {
      const handle = input.assigned_to ?? input.assign_to
      if (handle === undefined && input.assigned_to_id === undefined) return undefined
      if (handle === undefined && input.assigned_to_id === null) return null
      const found = handle === "me"
        ? yield* people.byId(caller.id)
        : handle !== undefined
        ? yield* people.byHandle(handle)
        : yield* people.byId(input.assigned_to_id!)
      return yield* Effect.orElseFail(found, () =>
        new Errors.NotFound({
          message: `no user ${handle !== undefined ? `with handle "${handle}"` : `with id ${input.assigned_to_id}`}`,
          details: { field: handle !== undefined ? "assigned_to" : "assigned_to_id" }
        }))
    })

  /**
   * The assignee takes part in the project, and hears of it unless it assigned itself. The membership connects it to
   * the project for direct messages only when its own side assigned it (CONTRACT "Direct messages").
   */
  const assign = (caller: Auth.Principal, task: TaskRow, projectTitle: string, assignee: PersonRow, now: Date) =>
    Effect.gen(function*() {
      yield* projects.addMember(task.project_id, assignee.id, "member", now, joinsBySelf(caller.id, assignee))
      if (assignee.id === caller.id) return
      yield* outbox.emit([assignee.id], "task.assigned", taskAssigned(publicUrl, task, projectTitle, caller))
    })

  /** The next occurrence of a completed recurring task: made once, found again on every retry. */
  const nextOccurrence = (caller: Auth.Principal, task: TaskAccessRow, now: Date) =>
    Effect.gen(function*() {
      if (task.recurrence === null) return undefined
      const existing = yield* repo.nextOccurrence(task.id)
      if (existing !== undefined) return yield* repo.reread(existing)
      const values = {
        title: task.title,
        description: task.description,
        status: "pending" as const,
        assigned_to_id: task.assigned_to_id,
        recurrence: task.recurrence,
        priority: task.priority,
        deadline: nextDeadline(task.deadline, task.recurrence, now.getTime()),
        wave_scheduled: null,
        requested_by_id: task.rb_id
      }
      const id = yield* repo.insert(task.project_id, task.created_by_id, values, now, task.id)
      // a concurrent completion made it first
      if (id === undefined) return yield* repo.reread((yield* repo.nextOccurrence(task.id))!)
      yield* notes.copyItems(task.id, id, now)
      const next = yield* repo.reread(id)
      if (task.assigned_to_id !== null && task.assigned_to_id !== caller.id && task.a_handle !== null) {
        const assignee = yield* people.byId(task.assigned_to_id)
        if (Option.isSome(assignee)) yield* assign(caller, next, task.project_title, assignee.value, now)
      }
      return next
    })

  return { assigneeOf, assign, nextOccurrence } as const
})
