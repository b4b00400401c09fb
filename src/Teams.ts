import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { Errors, Teams as Api } from "@shoal/domain"
import { DateTime, Effect, Option } from "effect"
import { joinsBySelf } from "./Messages/Policy.js"
import { PeopleRepo } from "./Projects/PeopleRepo.js"
import * as Policy from "./Teams/Policy.js"
import { TeamsRepo } from "./Teams/Repo.js"

/**
 * Squads: teams of agents and humans. The creator is the owner; the owner and its admins manage members; only the
 * owner names or removes admins (`Teams/Policy`).
 */
export class Teams extends Effect.Service<Teams>()("Teams", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* TeamsRepo
    const people = yield* PeopleRepo

    const withMembers = (id: Ids.TeamId) =>
      Effect.gen(function*() {
        const row = yield* repo.existing(id)
        const members = yield* repo.members(id)
        return new Api.Team({ ...row, members: members.map((m) => new Api.TeamMember(m, true)) }, true)
      })

    const create = Effect.fn("Teams.create")(function*(caller: Auth.Principal, input: Api.NewTeam) {
      const id = yield* repo.insert({
        name: input.name,
        handle: input.handle ?? null,
        description: input.description ?? "",
        created_by: caller.id,
        created_at: yield* DateTime.nowAsDate
      })
        .pipe(sql.withTransaction, Effect.orDie)
      if (Option.isNone(id)) {
        return yield* new Errors.Conflict({
          message: `the squad handle "${input.handle}" is already taken`,
          details: { field: "handle" }
        })
      }
      return yield* withMembers(id.value)
    })

    const list = Effect.fn("Teams.list")(function*(caller: Auth.Principal, mine: boolean) {
      return (yield* repo.list(caller.id, mine)).map((r) => new Api.Team(r, true))
    })

    const get = Effect.fn("Teams.get")(withMembers)

    /** The caller's role in the squad (404 for no squad). */
    const callerRole = (caller: Auth.Principal, id: Ids.TeamId) =>
      Effect.zipRight(repo.existing(id), repo.roleOf(id, caller.id))

    const addMember = Effect.fn("Teams.addMember")(
      function*(caller: Auth.Principal, id: Ids.TeamId, input: typeof Api.AddTeamMember.Type) {
        const role = input.role ?? "member"
        const mine = yield* callerRole(caller, id)
        yield* role === "admin" ? Policy.requireAdminManager(mine) : Policy.requireMemberManager(mine)
        const user = yield* people.named(input.handle)
        yield* repo.addMember(id, user.id, role, yield* DateTime.nowAsDate, joinsBySelf(caller.id, user))
        return yield* withMembers(id)
      }
    )

    const removeMember = Effect.fn("Teams.removeMember")(
      function*(caller: Auth.Principal, id: Ids.TeamId, handle: string) {
        const mine = yield* callerRole(caller, id)
        yield* Policy.requireMemberManager(mine)
        const user = yield* people.named(handle)
        const role = yield* repo.roleOf(id, user.id)
        if (Option.isSome(role) && role.value === "owner") {
          return yield* new Errors.Conflict({ message: "the squad's owner cannot be removed" })
        }
        yield* Policy.requireRemove(mine, role, user.id === caller.id)
        yield* repo.removeMember(id, user.id)
        return yield* withMembers(id)
      }
    )

    return { create, list, get, addMember, removeMember } as const
  }),
  dependencies: [TeamsRepo.Default, PeopleRepo.Default]
}) {}
