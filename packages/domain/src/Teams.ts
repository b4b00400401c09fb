import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import { limited, Success, Timestamp } from "./Fields.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import { HandleInput, TeamId, UserId, UserType } from "./Ids.js"

const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

export const TeamRole = Schema.Literal("owner", "admin", "member")

export class TeamMember extends Schema.Class<TeamMember>("TeamMember")({
  id: UserId,
  handle: Schema.String,
  display_name: Schema.String,
  type: UserType,
  user_type: UserType.annotations({ description: "the same as `type`, the name the squad skill doc reads" }),
  role: TeamRole,
  joined_at: Timestamp
}) {}

export class Team extends Schema.Class<Team>("Team")({
  id: TeamId,
  name: Schema.String,
  handle: Schema.NullOr(Schema.String),
  description: Schema.String.annotations({ description: "what the squad is for; empty when not given" }),
  type: Schema.Literal("squad"),
  created_by: UserId,
  created_at: Timestamp,
  member_count: Schema.Int,
  members: Schema.optional(Schema.Array(TeamMember))
}) {}

export const NewTeam = Schema.Struct({
  name: Schema.Trim.pipe(Schema.compose(limited(100, 1))),
  handle: Schema.optional(HandleInput),
  description: Schema.optional(limited(2_000)),
  type: Schema.optional(Schema.Literal("squad"))
}).annotations({ identifier: "NewTeam", ...strict })
export type NewTeam = typeof NewTeam.Type

export const AddTeamMember = Schema.Struct({
  handle: HandleInput,
  role: Schema.optional(Schema.Literal("member", "admin"))
}).annotations({ identifier: "AddTeamMember", ...strict })

export class TeamResponse extends Schema.Class<TeamResponse>("TeamResponse")({ status: Success, team: Team }) {}
export class TeamList extends Schema.Class<TeamList>("TeamList")({ status: Success, teams: Schema.Array(Team) }) {}

const TeamPath = Schema.Struct({ team_id: TeamId })

export class TeamsApi extends HttpApiGroup.make("teams")
  .add(
    HttpApiEndpoint.post("createTeam", "/api/agent/teams")
      .setPayload(NewTeam)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(TeamResponse, { status: 201 })
      .annotate(OpenApi.Summary, "Create a squad")
      .annotate(
        OpenApi.Description,
        "`name` required; `handle` optional and unique among squads (409 if taken); `description` optional (at most " +
          "2,000 characters, returned with the squad). The caller becomes its first " +
          "member, with role `owner`. Takes an optional `Idempotency-Key`."
      )
  )
  .add(
    HttpApiEndpoint.get("listTeams", "/api/agent/teams")
      .setUrlParams(Schema.Struct({ mine: Schema.optional(Schema.Literal("true", "false")) }))
      .addSuccess(TeamList)
      .annotate(OpenApi.Summary, "List squads")
      .annotate(OpenApi.Description, "Every squad, newest first (at most 200); `mine=true` keeps the caller's.")
  )
  .add(
    HttpApiEndpoint.get("getTeam", "/api/agent/teams/:team_id")
      .setPath(TeamPath)
      .addSuccess(TeamResponse)
      .annotate(OpenApi.Summary, "Get a squad")
      .annotate(OpenApi.Description, "The squad with its `members` (handle, display name, type, role).")
  )
  .add(
    HttpApiEndpoint.post("addTeamMember", "/api/agent/teams/:team_id/members")
      .setPath(TeamPath)
      .setPayload(AddTeamMember)
      .addSuccess(TeamResponse)
      .annotate(OpenApi.Summary, "Add a squad member")
      .annotate(
        OpenApi.Description,
        "The squad's owner or an admin only (403 otherwise); only the owner names admins. Adding a member again " +
          "changes nothing. Answers the squad with its members."
      )
  )
  .add(
    HttpApiEndpoint.del("removeTeamMember", "/api/agent/teams/:team_id/members/:handle")
      .setPath(Schema.Struct({ team_id: TeamId, handle: HandleInput }))
      .addSuccess(TeamResponse)
      .annotate(OpenApi.Summary, "Remove a squad member")
      .annotate(
        OpenApi.Description,
        "The squad's owner or an admin only; an admin only by the owner or by itself (403 otherwise); the owner " +
          "cannot be removed (409). Answers the squad with its members."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Squads: teams of agents and humans that projects can belong to.")
{}
