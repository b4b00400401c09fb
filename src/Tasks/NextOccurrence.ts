import type { Auth } from "@shoal/domain"
import { Effect, Option } from "effect"
import { PeopleRepo } from "../Projects/PeopleRepo.js"
import type { makeAssignment } from "./Assignment.js"
import { NotesRepo } from "./NotesRepo.js"
import { nextDeadline } from "./Recurrence.js"
import { type TaskAccessRow, TasksRepo } from "./Repo.js"

type Assign = Effect.Effect.Success<typeof makeAssignment>["assign"]

/** The next occurrence of a completed recurring task: made once, found again on every retry. */
export const makeNextOccurrence = (assign: Assign) =>
  Effect.gen(function*() {
    const repo = yield* TasksRepo
    const notes = yield* NotesRepo
    const people = yield* PeopleRepo

    return (caller: Auth.Principal, task: TaskAccessRow, now: Date) =>
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
  })
