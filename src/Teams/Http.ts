import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, ShoalApi, Teams as Api } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { Teams } from "../Teams.js"

const answer = (team: Api.Team) => new Api.TeamResponse({ status: "success", team }, true)

export const TeamsHttpLive = HttpApiBuilder.group(ShoalApi, "teams", (handlers) =>
  Effect.gen(function*() {
    const teams = yield* Teams
    const caller = currentUser
    return handlers
      .handle(
        "createTeam",
        idempotent("createTeam", Api.TeamResponse, ({ payload }) =>
          Effect.flatMap(caller, (c) =>
            teams.create(c, payload)).pipe(Effect.map(answer)))
      )
      .handle("listTeams", ({ urlParams }) =>
        Effect.flatMap(caller, (c) =>
          teams.list(c, urlParams.mine === "true")).pipe(
            Effect.map((list) =>
              new Api.TeamList({ status: "success", teams: list }, true)
            )
          ))
      .handle("getTeam", ({ path }) =>
        Effect.map(teams.get(path.team_id), answer))
      .handle("addTeamMember", ({ path, payload }) =>
        Effect.flatMap(caller, (c) =>
          teams.addMember(c, path.team_id, payload)).pipe(Effect.map(answer)))
      .handle("removeTeamMember", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          teams.removeMember(c, path.team_id, path.handle)).pipe(Effect.map(answer)))
  })).pipe(withOnly(Teams, Idempotency, Auth.Authentication))
