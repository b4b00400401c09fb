import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, Projects as Api, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok } from "../Http/RequestOf.js"
import { Projects } from "../Projects.js"

export const ProjectsHttpLive = HttpApiBuilder.group(ShoalApi, "projects", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* Projects
    const caller = currentUser
    return handlers
      .handle("listProjects", ({ urlParams }) =>
        Effect.flatMap(caller, (c) =>
          projects.list(c, urlParams)).pipe(Effect.map(ok(Api.ProjectList))))
      .handle(
        "createProject",
        idempotent("createProject", Api.ProjectResponse, ({ payload }) =>
          Effect.flatMap(caller, (c) =>
            projects.create(c, payload)).pipe(Effect.map(ok(Api.ProjectResponse))))
      )
      .handle("getProject", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          projects.get(c, path.project_id)).pipe(
            Effect.map((project) =>
              ok(Api.ProjectResponse)({ project })
            )
          ))
      .handle("updateProject", ({ path, payload }) =>
        Effect.flatMap(caller, (c) =>
          projects.update(c, path.project_id, payload)).pipe(
            Effect.map(ok(Api.ProjectResponse))
          ))
      .handle("deleteProject", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          projects.remove(c, path.project_id)).pipe(
            Effect.map((message) =>
              new Api.ProjectDeleted({ status: "success", message })
            )
          ))
      .handle("listMembers", ({ path }) =>
        Effect.flatMap(caller, (c) => projects.members(c, path.project_id)).pipe(
          Effect.map((members) =>
            ok(Api.MemberList)({ project_id: path.project_id, members: members.map((m) => new Api.Member(m, true)) })
          )
        ))
      .handle("addParticipant", ({ path, payload }) =>
        Effect.flatMap(caller, (c) =>
          projects.addParticipant(c, path.project_id, payload)).pipe(
            Effect.map(({ added, member }) =>
              ok(Api.ParticipantAdded)({ project_id: path.project_id, added, member: new Api.Member(member, true) })
            )
          ))
      .handle("moveTasks", ({ path, payload }) =>
        Effect.flatMap(caller, (c) =>
          projects.moveTasks(c, path.project_id, payload.target_project_id)).pipe(
            Effect.map((moved_count) =>
              new Api.TasksMoved({
                status: "success",
                moved_count,
                message: `moved ${moved_count} active task${
                  moved_count === 1 ? "" : "s"
                } to project ${payload.target_project_id}`
              })
            )
          ))
  })).pipe(withOnly(Projects, Idempotency, Auth.Authentication))
