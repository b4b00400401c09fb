import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { Errors, Projects as Api } from "@shoal/domain"
import { DateTime, Effect } from "effect"
import { PublicUrl } from "./Identity/PublicUrl.js"
import { joinsBySelf } from "./Messages/Policy.js"
import { requestedBy, resolveAttribution } from "./Projects/Attribution.js"
import { PeopleRepo } from "./Projects/PeopleRepo.js"
import * as Policy from "./Projects/Policy.js"
import { type ProjectRow, ProjectsRepo, type ProjectValues } from "./Projects/Repo.js"
import * as TaskPolicy from "./Tasks/Policy.js"
import { TeamsRepo } from "./Teams/Repo.js"

/** The module_type → project_type table of the specification; a pair outside it is a 400. */
export const checkTypes = (moduleType: string | null, projectType: string | null) => {
  if (projectType === null) return Effect.void
  const allowed: ReadonlyArray<string> | undefined = moduleType === null
    ? undefined
    : Api.projectTypes[moduleType as Api.ModuleType]
  if (allowed !== undefined && allowed.includes(projectType)) return Effect.void
  return Effect.fail(
    new Errors.InvalidRequest({
      message: moduleType === null
        ? `project_type "${projectType}" needs a module_type`
        : `project_type "${projectType}" is not allowed for module_type "${moduleType}"; allowed: ${
          allowed!.join(", ")
        }`,
      details: { field: "project_type", module_type: moduleType, allowed: allowed ?? [] }
    })
  )
}

/** Projects: search, create, change, delete, members; tasks of a project are the Tasks service's. */
export class Projects extends Effect.Service<Projects>()("Projects", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ProjectsRepo
    const people = yield* PeopleRepo
    const teams = yield* TeamsRepo
    const publicUrl = yield* Effect.orDie(PublicUrl)

    // the row's columns are the project's fields; what a row adds about the caller (its role, a page's total) is
    // dropped when the answer is encoded
    const toProject = ({ rb_handle, rb_id, rb_name, ...row }: ProjectRow): Api.Project =>
      new Api.Project({
        ...row,
        permalink: `${publicUrl}/projects/${row.id}`,
        requested_by: requestedBy({ rb_id, rb_handle, rb_name })
      }, true)

    /** The caller, or the human that owns the caller, must be in the squad. */
    const checkTeam = (caller: Auth.Principal, teamId: Ids.TeamId | null) =>
      Effect.gen(function*() {
        if (teamId === null) return
        yield* teams.existing(teamId)
        const ids = caller.ownerId === null ? [caller.id] : [caller.id, caller.ownerId]
        if (!(yield* teams.anyMember(teamId, ids))) {
          return yield* new Errors.Forbidden({
            message: "setting team_id needs the caller (or the caller's owner) to be a member of that squad"
          })
        }
      })

    const list = Effect.fn("Projects.list")(function*(caller: Auth.Principal, q: Api.ProjectListQuery) {
      const page = q.page ?? 1
      const limit = q.limit ?? 50
      const yes = (v: string | undefined) => v === "true" || v === "1"
      const filter = {
        caller: caller.id,
        q: q.q,
        scope: yes(q.member_only) ? "member_only" as const : yes(q.mine) ? "mine" as const : "visible" as const,
        moduleType: q.module_type,
        limit,
        offset: (page - 1) * limit
      }
      const rows = yield* repo.list(filter)
      // past the last page the window count has no row to ride on: ask for the first row for the total
      const total = rows.length > 0
        ? rows[0]!.total
        : page > 1
        ? yield* Effect.map(repo.list({ ...filter, limit: 1, offset: 0 }), (r) => r[0]?.total ?? 0)
        : 0
      return {
        projects: rows.map(toProject),
        meta: new Api.PageMeta({ total, pages: Math.ceil(total / limit), page, limit })
      }
    })

    const create = Effect.fn("Projects.create")(function*(caller: Auth.Principal, input: Api.NewProject) {
      const moduleType = input.module_type ?? null
      const projectType = input.project_type ?? null
      yield* checkTypes(moduleType, projectType)
      yield* checkTeam(caller, input.team_id ?? null)
      const attribution = yield* resolveAttribution(people, input)
      const values: ProjectValues = {
        title: input.title,
        description: input.description ?? "",
        status: input.status ?? "active",
        visibility: input.visibility ?? "private",
        help_needed: input.help_needed ?? "",
        skills: input.skills ?? [],
        module_type: moduleType,
        project_type: projectType,
        deadline: input.deadline ?? null,
        team_id: input.team_id ?? null,
        requested_by_id: attribution.id
      }
      const row = yield* Effect.gen(function*() {
        const id = yield* repo.insert(caller.id, values, yield* DateTime.nowAsDate)
        return yield* Effect.flatMap(repo.access(id, caller.id), Effect.orDieWith(() => "created project vanished"))
      }).pipe(sql.withTransaction, Effect.orDie)
      return { project: toProject(row), warning: attribution.warning }
    })

    const get = Effect.fn("Projects.get")(function*(caller: Auth.Principal, id: Ids.ProjectId) {
      return toProject(yield* repo.visible(id, caller.id))
    })

    const update = Effect.fn("Projects.update")(
      function*(caller: Auth.Principal, id: Ids.ProjectId, patch: Api.ProjectPatch) {
        const row = yield* repo.visible(id, caller.id)
        yield* Policy.requireManager(row, "change it")
        const values: ProjectValues = {
          title: patch.title ?? row.title,
          description: patch.description ?? row.description,
          status: patch.status ?? row.status,
          visibility: patch.visibility ?? row.visibility,
          help_needed: patch.help_needed ?? row.help_needed,
          skills: patch.skills ?? row.skills,
          module_type: patch.module_type !== undefined ? patch.module_type : row.module_type,
          project_type: patch.project_type !== undefined ? patch.project_type : row.project_type,
          deadline: patch.deadline !== undefined ? patch.deadline : row.deadline,
          team_id: patch.team_id !== undefined ? patch.team_id : row.team_id,
          requested_by_id: row.rb_id
        }
        yield* checkTypes(values.module_type, values.project_type)
        if (values.team_id !== row.team_id) yield* checkTeam(caller, values.team_id)
        const attribution = yield* resolveAttribution(people, patch)
        const stored = { ...values, requested_by_id: attribution.id ?? values.requested_by_id }
        const updated = yield* Effect.gen(function*() {
          yield* repo.update(id, stored, yield* DateTime.nowAsDate)
          return yield* Effect.flatMap(repo.access(id, caller.id), Effect.orDieWith(() => "updated project vanished"))
        }).pipe(sql.withTransaction, Effect.orDie)
        return { project: toProject(updated), warning: attribution.warning }
      }
    )

    const remove = Effect.fn("Projects.remove")(function*(caller: Auth.Principal, id: Ids.ProjectId) {
      const row = yield* repo.visible(id, caller.id)
      yield* Policy.requireManager(row, "delete it")
      yield* Effect.gen(function*() {
        const active = yield* repo.countActiveTasks(id)
        if (active > 0) {
          return yield* new Errors.Conflict({
            message: `cannot delete a project with ${active} active task${
              active === 1 ? "" : "s"
            }; move them to another project first (POST /api/agent/projects/${id}/tasks/move)`,
            details: { active_tasks: active }
          })
        }
        yield* repo.remove(id)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      return `project "${row.title}" deleted`
    })

    const members = Effect.fn("Projects.members")(function*(caller: Auth.Principal, id: Ids.ProjectId) {
      yield* repo.visible(id, caller.id)
      return yield* repo.members(id)
    })

    const addParticipant = Effect.fn("Projects.addParticipant")(
      function*(caller: Auth.Principal, id: Ids.ProjectId, input: typeof Api.AddParticipant.Type) {
        const row = yield* repo.visible(id, caller.id)
        yield* Policy.requireParticipant(row, "add participants")
        const role = input.role ?? "member"
        if (role === "manager") yield* Policy.requireManager(row, "name managers")
        const user = yield* people.named(input.handle)
        const consented = joinsBySelf(caller.id, user)
        const added = yield* repo.addMember(id, user.id, role, yield* DateTime.nowAsDate, consented)
        const member = (yield* repo.members(id)).find((m) => m.id === user.id)!
        return { added, member }
      }
    )

    const moveTasks = Effect.fn("Projects.moveTasks")(
      function*(caller: Auth.Principal, id: Ids.ProjectId, target: Ids.ProjectId) {
        const from = yield* repo.visible(id, caller.id)
        yield* Policy.requireParticipant(from, "move its tasks")
        yield* Policy.requireManager(from, "move its tasks")
        const to = yield* repo.visible(target, caller.id)
        yield* Policy.requireParticipant(to, "receive tasks")
        if (id === target) return 0
        return yield* Effect.gen(function*() {
          const held = (yield* repo.activeBounties(id)).filter((t) => !TaskPolicy.canMoveBounty(caller, t, to))
          if (held.length > 0) return yield* TaskPolicy.bountyMoveConflict(held.length)
          return yield* repo.moveActiveTasks(id, target, yield* DateTime.nowAsDate)
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      }
    )

    return { list, create, get, update, remove, members, addParticipant, moveTasks } as const
  }),
  dependencies: [ProjectsRepo.Default, PeopleRepo.Default, TeamsRepo.Default]
}) {}
