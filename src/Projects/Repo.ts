import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids, Projects } from "@shoal/domain"
import { Effect, flow, Schema } from "effect"
import { likeEscape, memberAdder } from "../Database/SqlHelpers.js"
import { visible } from "./Policy.js"
import { IsoFromDate } from "./Times.js"

export const ProjectRow = Schema.Struct({
  id: Ids.ProjectId,
  owner_id: Ids.UserId,
  title: Schema.String,
  description: Schema.String,
  status: Projects.ProjectStatus,
  visibility: Projects.Visibility,
  help_needed: Schema.String,
  skills: Schema.Array(Schema.String),
  module_type: Schema.NullOr(Projects.ModuleType),
  project_type: Schema.NullOr(Projects.ProjectType),
  deadline: Schema.NullOr(Schema.String),
  team_id: Schema.NullOr(Ids.TeamId),
  team_name: Schema.NullOr(Schema.String),
  rb_id: Schema.NullOr(Ids.UserId),
  rb_handle: Schema.NullOr(Ids.Handle),
  rb_name: Schema.NullOr(Schema.String),
  created_at: IsoFromDate,
  updated_at: IsoFromDate
})
export type ProjectRow = typeof ProjectRow.Type

/** A project with what the caller is to it: its role there, and whether it owns the project's owner. */
export const AccessRow = Schema.Struct({
  ...ProjectRow.fields,
  caller_role: Schema.NullOr(Projects.MemberRole),
  owns_owner: Schema.Boolean
})
export type AccessRow = typeof AccessRow.Type

const ListRow = Schema.Struct({ ...ProjectRow.fields, total: Schema.Number })

export const MemberRow = Schema.Struct({
  id: Ids.UserId,
  handle: Schema.String,
  display_name: Schema.String,
  role: Projects.MemberRole,
  type: Ids.UserType,
  joined_at: IsoFromDate
})
export type MemberRow = typeof MemberRow.Type

const ACTIVE_TASK_STATUSES = ["pending", "in_progress", "review", "pending_approval"] as const

/** A project's own columns, as a create or an update writes them. */
export type ProjectValues =
  & Omit<ProjectRow, "id" | "owner_id" | "team_name" | "rb_id" | "rb_handle" | "rb_name" | "created_at" | "updated_at">
  & { readonly requested_by_id: Ids.UserId | null }

export interface ListFilter {
  readonly caller: Ids.UserId
  readonly q: string | undefined
  readonly scope: "visible" | "mine" | "member_only"
  readonly moduleType: string | undefined
  readonly limit: number
  readonly offset: number
}

export class ProjectsRepo extends Effect.Service<ProjectsRepo>()("Projects/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`p.id, p.owner_id, p.title, p.description, p.status, p.visibility, p.help_needed,
      p.skills, p.module_type, p.project_type, p.deadline, p.team_id, tm.name AS team_name,
      rb.id AS rb_id, rb.handle AS rb_handle, rb.display_name AS rb_name,
      p.created_at AS created_at, p.updated_at AS updated_at`)
    const joins = sql.literal(`LEFT JOIN teams tm ON tm.id = p.team_id LEFT JOIN users rb ON rb.id = p.requested_by_id`)

    const access = SqlSchema.findOne({
      Request: Schema.Struct({ id: Ids.ProjectId, caller: Ids.UserId }),
      Result: AccessRow,
      execute: ({ caller, id }) =>
        sql`SELECT ${columns}, m.role AS caller_role, (o.owner_id IS NOT NULL AND o.owner_id = ${caller}) AS owns_owner
            FROM projects p ${joins}
            JOIN users o ON o.id = p.owner_id
            LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = ${caller}
            WHERE p.id = ${id}`
    })

    const list = (f: ListFilter) => {
      const member = sql`EXISTS (SELECT 1 FROM project_members m WHERE m.project_id = p.id AND m.user_id = ${f.caller})`
      const ownsOwner = sql`p.owner_id IN (SELECT id FROM users WHERE owner_id = ${f.caller})`
      const conditions = [
        f.scope === "mine"
          ? sql`(${member} OR ${ownsOwner})`
          : f.scope === "member_only"
          ? sql`EXISTS (SELECT 1 FROM project_members m
                 WHERE m.project_id = p.id AND m.user_id = ${f.caller} AND m.role <> 'owner')`
          : sql`(p.visibility = 'public' OR ${member} OR ${ownsOwner})`
      ]
      if (f.q !== undefined && f.q.trim() !== "") conditions.push(sql`p.title ILIKE ${`%${likeEscape(f.q.trim())}%`}`)
      if (f.moduleType !== undefined) conditions.push(sql`p.module_type = ${f.moduleType}`)
      return SqlSchema.findAll({
        Request: Schema.Void,
        Result: ListRow,
        execute: () =>
          sql`SELECT ${columns}, (count(*) OVER ())::int AS total FROM projects p ${joins}
              WHERE ${sql.and(conditions)}
              ORDER BY p.created_at DESC, p.id LIMIT ${f.limit} OFFSET ${f.offset}`
      })(undefined).pipe(Effect.orDie)
    }

    // skills is jsonb: its JSON text is the parameter
    const insert = (owner: Ids.UserId, v: ProjectValues, now: Date) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ id: Ids.ProjectId }>`INSERT INTO projects ${
          sql.insert({ owner_id: owner, ...v, skills: JSON.stringify(v.skills), created_at: now, updated_at: now })
        } RETURNING id`
        const id = rows[0]!.id
        yield* sql`INSERT INTO project_members (project_id, user_id, role, consented, created_at)
                   VALUES (${id}, ${owner}, 'owner', true, ${now})`
        return id
      }).pipe(Effect.orDie)

    const update = (id: Ids.ProjectId, v: ProjectValues, now: Date) =>
      sql`UPDATE projects SET ${sql.update({ ...v, skills: JSON.stringify(v.skills), updated_at: now })}
          WHERE id = ${id}`.pipe(Effect.orDie)

    const countActiveTasks = (id: Ids.ProjectId) =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM tasks
                           WHERE project_id = ${id} AND status IN ${sql.in(ACTIVE_TASK_STATUSES)}`,
        (rows) => rows[0]!.n
      ).pipe(Effect.orDie)

    const remove = (id: Ids.ProjectId) => sql`DELETE FROM projects WHERE id = ${id}`.pipe(Effect.orDie)

    const members = flow(
      SqlSchema.findAll({
        Request: Ids.ProjectId,
        Result: MemberRow,
        execute: (id) =>
          sql`SELECT u.id, u.handle, u.display_name, m.role, u.user_type AS type, m.created_at AS joined_at
            FROM project_members m JOIN users u ON u.id = m.user_id
            WHERE m.project_id = ${id}
            ORDER BY (m.role = 'owner') DESC, m.created_at, u.handle`
      }),
      Effect.orDie
    )

    const addMember = memberAdder(sql, "project_members", "project_id", "manager")

    /** The funders of the active tasks' bounties (a task with a bounty carries its funder with it). */
    const activeBounties = (from: Ids.ProjectId) =>
      sql<{ gem_bounty: number; funder_id: Ids.UserId | null }>`
        SELECT t.gem_bounty, b.funder_id FROM tasks t LEFT JOIN gem_bounties b ON b.task_id = t.id
        WHERE t.project_id = ${from} AND t.status IN ${sql.in(ACTIVE_TASK_STATUSES)} AND t.gem_bounty > 0
        FOR UPDATE OF t`.pipe(Effect.orDie)

    /** Moves the active tasks; their assignees take part in the destination. */
    const moveActiveTasks = (from: Ids.ProjectId, to: Ids.ProjectId, now: Date) =>
      Effect.gen(function*() {
        const moved = yield* sql<{ id: string }>`
          UPDATE tasks SET project_id = ${to}, updated_at = ${now}
          WHERE project_id = ${from} AND status IN ${sql.in(ACTIVE_TASK_STATUSES)} RETURNING id`
        yield* sql`INSERT INTO project_members (project_id, user_id, role, created_at)
                   SELECT DISTINCT ${to}::uuid, assigned_to_id, 'member', ${now}::timestamptz FROM tasks
                   WHERE project_id = ${to} AND assigned_to_id IS NOT NULL
                   ON CONFLICT DO NOTHING`
        return moved.length
      }).pipe(Effect.orDie)

    return {
      access: (id: Ids.ProjectId, caller: Ids.UserId) => Effect.orDie(access({ id, caller })),
      /** The project with the caller's access to it, if the caller may see it (a 404 otherwise). */
      visible: (id: Ids.ProjectId, caller: Ids.UserId) =>
        Effect.flatMap(Effect.orDie(access({ id, caller })), (row) => visible(id, row)),
      list,
      insert,
      update,
      countActiveTasks,
      remove,
      members,
      addMember,
      activeBounties,
      moveActiveTasks
    } as const
  })
}) {}
