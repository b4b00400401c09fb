import type { Auth, Ids } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect } from "effect"
import { PublicUrl } from "../Identity/PublicUrl.js"
import { joinsBySelf } from "../Messages/Policy.js"
import { PeopleRepo, type PersonRow } from "../Projects/PeopleRepo.js"
import { ProjectsRepo } from "../Projects/Repo.js"
import { Outbox } from "../Realtime/Outbox.js"
import type { TaskRow } from "./Repo.js"
import { taskAssigned } from "./Wire.js"

export type AssigneeInput = {
  readonly assigned_to?: string | undefined
  readonly assign_to?: string | undefined
  readonly assigned_to_id?: Ids.UserId | null | undefined
}

/** Who a task is assigned to, and what assigning it does: the assignee joins the project and hears of it. */
export const makeAssignment = Effect.gen(function*() {
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

  return { assigneeOf, assign } as const
})
