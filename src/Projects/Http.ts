import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, Projects as Api, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok } from "../Http/RequestOf.js"
import { Projects } from "../Projects.js"

export const ProjectsHttpLive = HttpApiBuilder.group(ShoalApi, "projects", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* Projects
    const withCaller = Effect.flatMap(Auth.CurrentUser, Effect.succeed)
    return handlers
      .handle("listProjects", ({ urlParams }) =>
        withCaller.pipe(
          Effect.flatMap((caller) => projects.list(caller, urlParams)),
          Effect.map(ok(Api.ProjectList))
        ))
      .handle(
        "createProject",
        idempotent("createProject", Api.ProjectResponse, ({ payload }) =>
          withCaller.pipe(
            Effect.flatMap((caller) => projects.create(caller, payload)),
            Effect.map(ok(Api.ProjectResponse))
          ))
      )
      .handle("getProject", ({ path }) =>
        withCaller.pipe(
          Effect.flatMap((caller) => projects.get(caller, path.project_id)),
          Effect.map((project) => new Api.ProjectResponse({ status: "success", project }, true))
        ))
      .handle("updateProject", ({ path, payload }) =>
        withCaller.pipe(
          Effect.flatMap((caller) => projects.update(caller, path.project_id, payload)),
          Effect.map(ok(Api.ProjectResponse))
        ))
      .handle("deleteProject", ({ path }) =>
        withCaller.pipe(
          Effect.flatMap((caller) => projects.remove(caller, path.project_id)),
          Effect.map((message) => new Api.ProjectDeleted({ status: "success", message }))
        ))
      .handle("listMembers", ({ path }) =>
        withCaller.pipe(
          Effect.flatMap((caller) => projects.members(caller, path.project_id)),
          Effect.map((members) =>
            new Api.MemberList({
              status: "success",
              project_id: path.project_id,
              members: members.map((m) => new Api.Member(m, true))
            }, true)
          )
        ))
      .handle("addParticipant", ({ path, payload }) =>
        withCaller.pipe(
          Effect.flatMap((caller) => projects.addParticipant(caller, path.project_id, payload)),
          Effect.map(({ added, member }) =>
            new Api.ParticipantAdded({
              status: "success",
              project_id: path.project_id,
              added,
              member: new Api.Member(member, true)
            }, true)
          )
        ))
      .handle("moveTasks", ({ path, payload }) =>
        withCaller.pipe(
          Effect.flatMap((caller) => projects.moveTasks(caller, path.project_id, payload.target_project_id)),
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
