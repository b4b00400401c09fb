import { Schema } from "effect"
import { HttpUrl, IntParam, limited, Success, Timestamp } from "./Fields.js"
import { HandleInput, ProjectId, TeamId, UserId, UserType } from "./Ids.js"
import { AttributionFields, Deadline, Description, Person, Skills, Title, Warning } from "./Work.js"

const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

/** module_type → the project_type values it allows (the specification's table). */
export const projectTypes = {
  content_schedule: ["calendar_container", "blog_post", "newsletter", "social_post", "video", "podcast"],
  sourcing: ["pipeline_container", "supplier_deal"],
  enrichment: ["data_grid"]
} as const

export const ModuleType = Schema.Literal("content_schedule", "sourcing", "enrichment")
export type ModuleType = typeof ModuleType.Type
export const ProjectType = Schema.Literal(...Object.values(projectTypes).flat())
export type ProjectType = typeof ProjectType.Type
export const ProjectStatus = Schema.Literal("active", "completed", "archived")
export const Visibility = Schema.Literal("public", "private")
export const MemberRole = Schema.Literal("owner", "manager", "member")
export type MemberRole = typeof MemberRole.Type

export class Project extends Schema.Class<Project>("Project")({
  id: ProjectId,
  title: Schema.String,
  description: Schema.String,
  status: ProjectStatus,
  visibility: Visibility,
  help_needed: Schema.String,
  skills: Schema.Array(Schema.String),
  module_type: Schema.NullOr(ModuleType),
  project_type: Schema.NullOr(ProjectType),
  deadline: Schema.NullOr(Schema.String).annotations({ description: "an ISO 8601 date-time in UTC" }),
  team_id: Schema.NullOr(TeamId),
  team_name: Schema.NullOr(Schema.String),
  owner_id: UserId,
  permalink: HttpUrl,
  created_at: Timestamp,
  updated_at: Timestamp,
  requested_by: Schema.optional(Person)
}) {}

/** What create and PATCH both take; create requires the title, PATCH takes any field. */
const ProjectFields = {
  description: Schema.optional(Description),
  status: Schema.optional(ProjectStatus),
  visibility: Schema.optional(Visibility),
  help_needed: Schema.optional(limited(2_000)),
  skills: Schema.optional(Skills),
  module_type: Schema.optional(Schema.NullOr(ModuleType)),
  project_type: Schema.optional(Schema.NullOr(ProjectType)),
  deadline: Schema.optional(Schema.NullOr(Deadline)),
  team_id: Schema.optional(Schema.NullOr(TeamId)),
  ...AttributionFields
}

export const NewProject = Schema.Struct({ title: Title, ...ProjectFields }).annotations({
  identifier: "NewProject",
  ...strict
})
export type NewProject = typeof NewProject.Type

export const ProjectPatch = Schema.Struct({ title: Schema.optional(Title), ...ProjectFields }).annotations({
  identifier: "ProjectPatch",
  ...strict
})
export type ProjectPatch = typeof ProjectPatch.Type

const flag = Schema.Literal("true", "false", "1", "0").annotations({ description: "`true` or `false`" })

export const ProjectListQuery = Schema.Struct({
  q: Schema.optional(limited(300)),
  page: Schema.optional(IntParam({ min: 1, message: "page is an integer from 1", description: "page, from 1" })),
  limit: Schema.optional(IntParam({
    min: 1,
    max: 1000,
    message: "limit is an integer from 1 to 1000",
    description: "projects per page (default 50, at most 1000)"
  })),
  mine: Schema.optional(flag),
  member_only: Schema.optional(flag),
  module_type: Schema.optional(ModuleType)
})
export type ProjectListQuery = typeof ProjectListQuery.Type

export class PageMeta extends Schema.Class<PageMeta>("PageMeta")({
  total: Schema.Int,
  pages: Schema.Int,
  page: Schema.Int,
  limit: Schema.Int
}) {}

export class ProjectList extends Schema.Class<ProjectList>("ProjectList")({
  status: Success,
  projects: Schema.Array(Project),
  meta: PageMeta
}) {}

export class ProjectResponse extends Schema.Class<ProjectResponse>("ProjectResponse")({
  status: Success,
  project: Project,
  warning: Warning
}) {}

export class ProjectDeleted extends Schema.Class<ProjectDeleted>("ProjectDeleted")({
  status: Success,
  message: Schema.String
}) {}

export class Member extends Schema.Class<Member>("Member")({
  id: UserId,
  handle: Schema.String,
  display_name: Schema.String,
  role: MemberRole,
  type: UserType,
  joined_at: Timestamp
}) {}

export class MemberList extends Schema.Class<MemberList>("MemberList")({
  status: Success,
  project_id: ProjectId,
  members: Schema.Array(Member)
}) {}

export const AddParticipant = Schema.Struct({
  handle: HandleInput,
  role: Schema.optional(Schema.Literal("member", "manager"))
}).annotations({ identifier: "AddParticipant", ...strict })

export class ParticipantAdded extends Schema.Class<ParticipantAdded>("ParticipantAdded")({
  status: Success,
  project_id: ProjectId,
  member: Member,
  added: Schema.Boolean.annotations({ description: "false when the user already took part (nothing changed)" })
}) {}

export const MoveTasks = Schema.Struct({ target_project_id: ProjectId }).annotations({
  identifier: "MoveTasks",
  ...strict
})

export class TasksMoved extends Schema.Class<TasksMoved>("TasksMoved")({
  status: Success,
  moved_count: Schema.Int,
  message: Schema.String
}) {}

export const ProjectPath = Schema.Struct({ project_id: ProjectId })
