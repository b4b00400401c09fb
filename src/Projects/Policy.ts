import type { Ids } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect, Option } from "effect"
import type { AccessRow } from "./Repo.js"

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

export const toAccess = (row: AccessRow): Access => ({
  visibility: row.visibility,
  callerRole: row.caller_role,
  ownsOwner: row.owns_owner
})

export const projectNotFound = (id: Ids.ProjectId) => new Errors.NotFound({ message: `no project with id ${id}` })

/** The project if the caller may see it; a private one it does not take part in is a 404, like a missing one. */
export const visible = (id: Ids.ProjectId, row: Option.Option<AccessRow>) =>
  Option.isSome(row) && canSeeProject(toAccess(row.value))
    ? Effect.succeed(row.value)
    : Effect.fail(projectNotFound(id))

export const requireParticipant = (row: AccessRow, what: string) =>
  canWorkIn(toAccess(row))
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: `only participants of this project can ${what}` }))

export const requireManager = (row: AccessRow, what: string) =>
  canManageProject(toAccess(row))
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: `only the project's owner or a manager can ${what}` }))
