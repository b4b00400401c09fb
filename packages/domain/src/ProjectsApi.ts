import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Authentication } from "./Auth.js"
import { optionalBody } from "./Fields.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import * as P from "./Projects.js"

const access = "A private project is a 404 to anyone who does not take part in it."

export class ProjectsApi extends HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.get("listProjects", "/api/agent/projects")
      .setUrlParams(P.ProjectListQuery)
      .addSuccess(P.ProjectList)
      .annotate(OpenApi.Summary, "List projects")
      .annotate(
        OpenApi.Description,
        "Public projects and the private ones the caller takes part in, newest first. `q` searches titles " +
          "(case-insensitive), `mine=true` keeps the caller's own and participating projects, `member_only=true` " +
          "those it takes part in without owning them, `module_type` filters. `page` (default 1) and `limit` " +
          "(default 50, at most 1000); `meta` has total, pages, page and limit. Search before creating to avoid " +
          "duplicates."
      )
  )
  .add(
    HttpApiEndpoint.post("createProject", "/api/agent/projects")
      .setPayload(P.NewProject)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(P.ProjectResponse, { status: 201 })
      .annotate(OpenApi.Summary, "Create a project")
      .annotate(
        OpenApi.Description,
        "`title` is required; visibility defaults to `private`. `project_type` must be one its `module_type` " +
          "allows (content_schedule: calendar_container, blog_post, newsletter, social_post, video, podcast; " +
          "sourcing: pipeline_container, supplier_deal; enrichment: data_grid), else a 400. `deadline` is a date " +
          "or a date-time, with or without a zone. `team_id` needs the caller (or its owner) in that squad, else a " +
          "403. `requested_by` attributes the write; unresolved, the answer carries a `warning`. Takes an optional " +
          "`Idempotency-Key`."
      )
  )
  .add(
    HttpApiEndpoint.get("getProject", "/api/agent/projects/:project_id")
      .setPath(P.ProjectPath)
      .addSuccess(P.ProjectResponse)
      .annotate(OpenApi.Summary, "Get a project")
      .annotate(OpenApi.Description, `The project with its permalink and squad. ${access}`)
  )
  .add(
    HttpApiEndpoint.patch("updateProject", "/api/agent/projects/:project_id")
      .setPath(P.ProjectPath)
      .setPayload(optionalBody(P.ProjectPatch))
      .addSuccess(P.ProjectResponse)
      .annotate(OpenApi.Summary, "Update a project")
      .annotate(
        OpenApi.Description,
        "The owner or a manager only (403 for other participants). Any of the fields shown; the module/project " +
          `type pair is checked as on create. Answers the updated project. ${access}`
      )
  )
  .add(
    HttpApiEndpoint.del("deleteProject", "/api/agent/projects/:project_id")
      .setPath(P.ProjectPath)
      .addSuccess(P.ProjectDeleted)
      .annotate(OpenApi.Summary, "Delete a project")
      .annotate(
        OpenApi.Description,
        "The owner or a manager only. A project with active tasks (pending, in progress, review or awaiting " +
          "approval) is a 409 naming how many: move them first (`tasks/move`) or finish them."
      )
  )
  .add(
    HttpApiEndpoint.get("listMembers", "/api/agent/projects/:project_id/members")
      .setPath(P.ProjectPath)
      .addSuccess(P.MemberList)
      .annotate(OpenApi.Summary, "List a project's members")
      .annotate(OpenApi.Description, `Owner first: \`display_name\`, \`role\`, \`type\` (agent or human). ${access}`)
  )
  .add(
    HttpApiEndpoint.post("addParticipant", "/api/agent/projects/:project_id/add_participant")
      .setPath(P.ProjectPath)
      .setPayload(P.AddParticipant)
      .addSuccess(P.ParticipantAdded)
      .annotate(OpenApi.Summary, "Add a participant to a project")
      .annotate(
        OpenApi.Description,
        "Any participant adds a user by handle (404 if unknown); adding someone already there changes nothing. " +
          "Only the owner or a manager may give the `manager` role."
      )
  )
  .add(
    HttpApiEndpoint.post("moveTasks", "/api/agent/projects/:project_id/tasks/move")
      .setPath(P.ProjectPath)
      .setPayload(P.MoveTasks)
      .addSuccess(P.TasksMoved)
      .annotate(OpenApi.Summary, "Move a project's active tasks")
      .annotate(
        OpenApi.Description,
        "Moves every active task (not completed, cancelled or archived) to `target_project_id`; the caller must " +
          "take part in both projects. Answers `moved_count`."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Projects: create, search, change, members and participants.")
{}
