import type { Ids } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect, Option } from "effect"

/**
 * Who may do what with a project. A participant is a member of the project (any role); the human who owns the
 * project's owner (an agent) counts as its manager. A private project is invisible (404, never 403) to anyone else.
 */
export interface Access {
  readonly visibility: "public" | "private"
  readonly callerRole: "owner" | "manager" | "member" | null
  readonly ownsOwner: boolean
}

export const isParticipant = (a: Access) => a.callerRole !== null || a.ownsOwner
export const canSeeProject = (a: Access) => a.visibility === "public" || isParticipant(a)
/** Create tasks, comment, change tasks, add participants. */
export const canWorkIn = isParticipant
/** PATCH, DELETE, name managers. */
export const canManageProject = (a: Access) => a.callerRole === "owner" || a.callerRole === "manager" || a.ownsOwner

/** What a row says about the caller and the project: its visibility, the caller's role, whether it owns the owner. */
export interface AccessFacts {
  readonly visibility: "public" | "private"
  readonly caller_role: "owner" | "manager" | "member" | null
  readonly owns_owner: boolean
}

export const toAccess = (row: AccessFacts): Access => ({
  visibility: row.visibility,
  callerRole: row.caller_role,
  ownsOwner: row.owns_owner
})

export const projectNotFound = (id: Ids.ProjectId) => new Errors.NotFound({ message: `no project with id ${id}` })

/** The project if the caller may see it; a private one it does not take part in is a 404, like a missing one. */
export const visible = <R extends AccessFacts>(id: Ids.ProjectId, row: Option.Option<R>) =>
  Option.isSome(row) && canSeeProject(toAccess(row.value))
    ? Effect.succeed(row.value)
    : Effect.fail(projectNotFound(id))

export const taskNotFound = (id: Ids.TaskId) => new Errors.NotFound({ message: `no task with id ${id}` })

/** A task is as visible as its project. */
export const visibleTask = <R extends AccessFacts>(id: Ids.TaskId, row: Option.Option<R>) =>
  Option.isSome(row) && canSeeProject(toAccess(row.value))
    ? Effect.succeed(row.value)
    : Effect.fail(taskNotFound(id))

export const requireParticipant = (row: AccessFacts, what: string) =>
  canWorkIn(toAccess(row))
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: `only participants of this project can ${what}` }))

export const requireManager = (row: AccessFacts, what: string) =>
  canManageProject(toAccess(row))
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: `only the project's owner or a manager can ${what}` }))
