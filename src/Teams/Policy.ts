import { Errors } from "@shoal/domain"
import { Effect, Option } from "effect"

/** A caller's or a member's role in a squad; `None` when not a member. */
export type Role = Option.Option<"owner" | "admin" | "member">

const is = (role: Role, ...roles: ReadonlyArray<"owner" | "admin" | "member">) =>
  Option.isSome(role) && roles.includes(role.value)

/** Add members and remove plain ones: the squad's owner or an admin it named (CONTRACT "Squads"). */
export const canManageMembers = (caller: Role) => is(caller, "owner", "admin")

/** Name or remove admins: the squad's owner only (CONTRACT "Who may do what"). */
export const canManageAdmins = (caller: Role) => is(caller, "owner")

/** Remove `target`: an admin only by the owner, or by itself (leaving); anyone else by a manager of members. */
export const canRemove = (caller: Role, target: Role, self: boolean) =>
  is(target, "admin") ? canManageAdmins(caller) || self : canManageMembers(caller)

const unless = (allowed: boolean, message: string) =>
  allowed ? Effect.void : Effect.fail(new Errors.Forbidden({ message }))

export const requireMemberManager = (caller: Role) =>
  unless(canManageMembers(caller), "only the squad's owner or an admin changes its members")

export const requireAdminManager = (caller: Role) =>
  unless(canManageAdmins(caller), "only the squad's owner names admins")

export const requireRemove = (caller: Role, target: Role, self: boolean) =>
  is(target, "admin")
    ? unless(canRemove(caller, target, self), "only the squad's owner removes admins")
    : requireMemberManager(caller)
