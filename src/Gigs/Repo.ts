import { SqlClient, SqlSchema } from "@effect/sql"
import { Gigs, Ids, Tasks } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"
import { OPEN_STATUSES } from "./Policy.js"

export const GigRow = Schema.Struct({
  id: Ids.TaskId,
  title: Schema.String,
  description: Schema.String,
  gem_bounty: Schema.Number,
  skills: Schema.Array(Schema.String),
  project_id: Ids.ProjectId,
  project_title: Schema.String,
  deadline: Schema.NullOr(Schema.String),
  status: Tasks.TaskStatus,
  owner_id: Ids.UserId,
  owner_handle: Ids.Handle,
  owner_name: Schema.String,
  created_at: IsoFromDate
})
export type GigRow = typeof GigRow.Type

export const ApplicationRow = Schema.Struct({
  id: Ids.ApplicationId,
  task_id: Ids.TaskId,
  applicant_id: Ids.UserId,
  applicant_handle: Ids.Handle,
  applicant_display_name: Schema.String,
  verified: Schema.Boolean,
  message: Schema.String,
  status: Gigs.ApplicationStatus,
  created_at: IsoFromDate
})

export interface GigFilter {
  readonly skill: string | undefined
  readonly minBounty: number
  readonly after: { readonly createdAt: string; readonly id: string } | undefined
  readonly limit: number
}

/** Gigs and their applications. Premium features count while `expires_at` (NULL: never) is after `now`. */
export class GigsRepo extends Effect.Service<GigsRepo>()("Gigs/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statuses = OPEN_STATUSES.map((s) => `'${s}'`).join(", ")
    // open as a gig: a bounty, a public project, no assignee, not finished
    const open = sql.literal(
      `t.gem_bounty > 0 AND t.assigned_to_id IS NULL AND p.visibility = 'public'
       AND t.status IN (${statuses})`
    )
    const holds = (feature: string, userColumn: string, now: Date) =>
      sql`EXISTS (SELECT 1 FROM premium_features pf WHERE pf.user_id = ${sql.literal(userColumn)}
            AND pf.feature_id = ${feature} AND (pf.expires_at IS NULL OR pf.expires_at > ${now}))`

    const list = SqlSchema.findAll({
      Request: Schema.Any,
      Result: GigRow,
      execute: (f: GigFilter) =>
        sql`SELECT t.id, t.title, t.description, t.gem_bounty, p.skills, t.project_id, p.title AS project_title,
              t.deadline, t.status, o.id AS owner_id, o.handle AS owner_handle, o.display_name AS owner_name,
              t.created_at
            FROM tasks t JOIN projects p ON p.id = t.project_id JOIN users o ON o.id = t.created_by
            WHERE ${open} AND t.gem_bounty >= ${f.minBounty}
              AND (${f.skill ?? null}::text IS NULL OR EXISTS (
                SELECT 1 FROM jsonb_array_elements_text(p.skills) s WHERE lower(s) = lower(${f.skill ?? null}::text)))
              AND (${f.after?.createdAt ?? null}::timestamptz IS NULL
                OR (t.created_at, t.id) < (${f.after?.createdAt ?? null}::timestamptz, ${f.after?.id ?? null}::uuid))
            ORDER BY t.created_at DESC, t.id DESC
            LIMIT ${f.limit}`
    })

    const isOpen = (task: Ids.TaskId) =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM tasks t JOIN projects p ON p.id = t.project_id
          WHERE t.id = ${task} AND ${open}`,
        (rows) => (rows[0]?.n ?? 0) > 0
      ).pipe(Effect.orDie)

    const insert = (task: Ids.TaskId, applicant: Ids.UserId, message: string, now: Date) =>
      Effect.map(
        sql<{ id: Ids.ApplicationId }>`
          INSERT INTO gig_applications (task_id, applicant_id, message, created_at)
          VALUES (${task}, ${applicant}, ${message}, ${now})
          ON CONFLICT (task_id, applicant_id) DO NOTHING RETURNING id`,
        (rows) => rows[0]?.id
      ).pipe(Effect.orDie)

    const select = (now: Date) =>
      sql`SELECT a.id, a.task_id, a.applicant_id, u.handle AS applicant_handle,
            u.display_name AS applicant_display_name, ${holds("verified_badge", "a.applicant_id", now)} AS verified,
            a.message, a.status, a.created_at
          FROM gig_applications a JOIN users u ON u.id = a.applicant_id`

    const forTask = SqlSchema.findAll({
      Request: Schema.Any,
      Result: ApplicationRow,
      execute: ({ now, task }: { task: Ids.TaskId; now: Date }) =>
        sql`${select(now)} WHERE a.task_id = ${task}
            ORDER BY ${holds("priority_queue_7d", "a.applicant_id", now)} DESC, a.created_at, a.id`
    })

    const byId = SqlSchema.findOne({
      Request: Schema.Any,
      Result: ApplicationRow,
      execute: ({ id, now, task }: { task: Ids.TaskId; id: Ids.ApplicationId; now: Date }) =>
        sql`${select(now)} WHERE a.task_id = ${task} AND a.id = ${id}`
    })

    /** Assigns the task if nobody holds it yet (decided by the update itself); false when someone does. */
    const assign = (task: Ids.TaskId, applicant: Ids.UserId, now: Date) =>
      Effect.map(
        sql<{ id: string }>`UPDATE tasks SET assigned_to_id = ${applicant}, updated_at = ${now}
          WHERE id = ${task} AND assigned_to_id IS NULL AND gem_bounty > 0
            AND status IN (${sql.literal(statuses)}) RETURNING id`,
        (rows) => rows.length > 0
      ).pipe(Effect.orDie)

    const settle = (task: Ids.TaskId, accepted: Ids.ApplicationId) =>
      sql`UPDATE gig_applications SET status = CASE WHEN id = ${accepted} THEN 'accepted' ELSE 'declined' END
          WHERE task_id = ${task} AND status = 'pending'`.pipe(Effect.orDie)

    return {
      list: (f: GigFilter) => Effect.orDie(list(f)),
      isOpen,
      insert,
      forTask: (task: Ids.TaskId, now: Date) => Effect.orDie(forTask({ task, now })),
      byId: (task: Ids.TaskId, id: Ids.ApplicationId, now: Date) => Effect.orDie(byId({ task, id, now })),
      assign,
      settle
    } as const
  })
}) {}
