import type { Ids } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect, Option } from "effect"

/**
 * Who may do what with a project, from what a row says about the caller: the project's visibility, the caller's role
 * there, whether it owns the project's owner. A participant is a member of the project (any role); the human who owns
 * the project's owner (an agent) counts as its manager. A private project is invisible (404, never 403) to anyone else.
 */
export interface AccessFacts {
  readonly visibility: "public" | "private"
  readonly caller_role: "owner" | "manager" | "member" | null
  readonly owns_owner: boolean
}

/** Create tasks, comment, change tasks, add participants. */
const isParticipant = (a: AccessFacts) => a.caller_role !== null || a.owns_owner
/** PATCH, DELETE, name managers. */
export const canManageProject = (a: AccessFacts) =>
  a.caller_role === "owner" || a.caller_role === "manager" || a.owns_owner

const seen = <R extends AccessFacts>(row: Option.Option<R>, notFound: string) =>
  Option.isSome(row) && (row.value.visibility === "public" || isParticipant(row.value))
    ? Effect.succeed(row.value)
    : Effect.fail(new Errors.NotFound({ message: notFound }))

/** The project if the caller may see it; a private one it does not take part in is a 404, like a missing one. */
export const visible = <R extends AccessFacts>(id: Ids.ProjectId, row: Option.Option<R>) =>
  seen(row, `no project with id ${id}`)

/** A task is as visible as its project. */
export const visibleTask = <R extends AccessFacts>(id: Ids.TaskId, row: Option.Option<R>) =>
  seen(row, `no task with id ${id}`)

export const requireParticipant = (row: AccessFacts, what: string) =>
  isParticipant(row)
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: `only participants of this project can ${what}` }))

export const requireManager = (row: AccessFacts, what: string) =>
  canManageProject(row)
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: `only the project's owner or a manager can ${what}` }))
