import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids, Projects, Tasks } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { visibleTask } from "../Projects/Policy.js"
import { IsoFromDate } from "../Projects/Times.js"
import type { PageStart } from "../Social/Cursor.js"

export const TaskRow = Schema.Struct({
  id: Ids.TaskId,
  project_id: Ids.ProjectId,
  title: Schema.String,
  description: Schema.String,
  status: Tasks.TaskStatus,
  assigned_to_id: Schema.NullOr(Ids.UserId),
  a_handle: Schema.NullOr(Ids.Handle),
  a_name: Schema.NullOr(Schema.String),
  created_by_id: Ids.UserId,
  wave_scheduled: Schema.NullOr(IsoFromDate),
  deadline: Schema.NullOr(Schema.String),
  recurrence: Schema.NullOr(Tasks.Recurrence),
  priority: Schema.NullOr(Tasks.Priority),
  gem_bounty: Schema.Number,
  comment_count: Schema.Number,
  completion_note: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(IsoFromDate),
  created_at: IsoFromDate,
  updated_at: IsoFromDate,
  rb_id: Schema.NullOr(Ids.UserId),
  rb_handle: Schema.NullOr(Ids.Handle),
  rb_name: Schema.NullOr(Schema.String)
})
export type TaskRow = typeof TaskRow.Type

/** A task with what the caller is to its project (see Projects/Policy). */
export const TaskAccessRow = Schema.Struct({
  ...TaskRow.fields,
  project_title: Schema.String,
  visibility: Projects.Visibility,
  caller_role: Schema.NullOr(Projects.MemberRole),
  owns_owner: Schema.Boolean,
  // the bounty's funder (the human whose escrow holds its Gems) and where the Gems are, if it ever had one
  funder_id: Schema.NullOr(Ids.UserId),
  bounty_state: Schema.NullOr(Schema.String)
})
export type TaskAccessRow = typeof TaskAccessRow.Type

const PageRow = Schema.Struct({ ...TaskRow.fields, total: Schema.Number })

/** A task's own columns, as written by a create, an update and a recurrence. */
export type TaskValues =
  & Pick<TaskRow, "title" | "description" | "status" | "assigned_to_id" | "recurrence" | "priority" | "deadline">
  & { readonly wave_scheduled: Date | null; readonly requested_by_id: Ids.UserId | null }

/** A page of the tasks of one status (or any), oldest first, `after` the previous page's last task. */
export type PageQuery = PageStart & { readonly status: Tasks.TaskStatus | undefined }

export class TasksRepo extends Effect.Service<TasksRepo>()("Tasks/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // t is a tasks row (or a page of them): the assignee, attribution and comment count are joined on
    const columns = sql.literal(`t.id, t.project_id, t.title, t.description, t.status, t.assigned_to_id,
      a.handle AS a_handle, a.display_name AS a_name, t.created_by AS created_by_id,
      t.wave_scheduled AS wave_scheduled, t.deadline, t.recurrence, t.priority, t.gem_bounty,
      (SELECT count(*)::int FROM task_comments c WHERE c.task_id = t.id) AS comment_count,
      t.completion_note, t.completed_at AS completed_at,
      t.created_at AS created_at, t.updated_at AS updated_at,
      rb.id AS rb_id, rb.handle AS rb_handle, rb.display_name AS rb_name`)
    const joins = sql.literal(
      `LEFT JOIN users a ON a.id = t.assigned_to_id LEFT JOIN users rb ON rb.id = t.requested_by_id`
    )

    const access = SqlSchema.findOne({
      Request: Schema.Struct({ id: Ids.TaskId, caller: Ids.UserId }),
      Result: TaskAccessRow,
      execute: ({ caller, id }) =>
        sql`SELECT ${columns}, p.title AS project_title, p.visibility, m.role AS caller_role,
              (o.owner_id IS NOT NULL AND o.owner_id = ${caller}) AS owns_owner,
              b.funder_id, b.state AS bounty_state
            FROM tasks t ${joins}
            JOIN projects p ON p.id = t.project_id
            LEFT JOIN gem_bounties b ON b.task_id = t.id
            JOIN users o ON o.id = p.owner_id
            LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = ${caller}
            WHERE t.id = ${id}`
    })

    // archiving replaces deletion (the spec): an archived task is listed only when `status=archived` is asked for
    const statusFilter = (status: Tasks.TaskStatus | undefined) =>
      status === undefined ? sql`status <> 'archived'` : sql`status = ${status}`

    /**
     * One statement: the page through the index, then the joins and comment counts for its rows only; the total is
     * one index-only count beside it, not a window over every row.
     */
    const page = (where: "project" | "assignee", id: string, q: PageQuery) => {
      const owner = where === "project" ? sql`project_id = ${id}` : sql`assigned_to_id = ${id}`
      const filter = sql`${owner} AND ${statusFilter(q.status)}`
      const from = q.after === undefined
        ? sql``
        : sql`AND (created_at, id) > (${q.after.createdAt}::timestamptz, ${q.after.id}::uuid)`
      return SqlSchema.findAll({
        Request: Schema.Void,
        Result: PageRow,
        execute: () =>
          sql`WITH t AS (
              SELECT * FROM tasks WHERE ${filter} ${from} ORDER BY created_at, id LIMIT ${q.limit} OFFSET ${q.offset})
            SELECT ${columns}, (SELECT count(*)::int FROM tasks WHERE ${filter}) AS total
            FROM t ${joins} ORDER BY t.created_at, t.id`
      })(undefined).pipe(Effect.orDie)
    }

    /**
     * `id`: the one a bounty was funded under before the task existed (src/Tasks/Bounty.ts, `prefund`); undefined
     * when a concurrent completion already made this occurrence of `recurrenceOf`.
     */
    const insert = (
      project: Ids.ProjectId,
      createdBy: Ids.UserId,
      v: TaskValues & { readonly gem_bounty?: number },
      now: Date,
      recurrenceOf: Ids.TaskId | null = null,
      id: Ids.TaskId | null = null
    ) =>
      Effect.map(
        sql<{ id: Ids.TaskId }>`INSERT INTO tasks ${
          sql.insert({
            ...(id === null ? {} : { id }),
            project_id: project,
            created_by: createdBy,
            ...v,
            recurrence_of: recurrenceOf,
            created_at: now,
            updated_at: now
          })
        } ON CONFLICT (recurrence_of) DO NOTHING RETURNING id`,
        (rows) => rows[0]?.id
      ).pipe(Effect.orDie)

    const update = (
      id: Ids.TaskId,
      v: TaskValues & { readonly project_id: Ids.ProjectId; readonly completion_note: string | null },
      now: Date
    ) =>
      sql`UPDATE tasks SET ${sql.update(v)},
            completed_at = CASE WHEN ${v.status} IN ('completed', 'pending_approval')
              THEN coalesce(completed_at, ${now}::timestamptz) ELSE NULL END,
            updated_at = ${now}
          WHERE id = ${id}`.pipe(Effect.orDie)

    /** Completes the task unless it is already done (or closed); true when this call made the transition. */
    const markCompleted = (id: Ids.TaskId, status: Tasks.TaskStatus, note: string | null, now: Date) =>
      Effect.map(
        sql<{ id: string }>`UPDATE tasks SET status = ${status}, completion_note = coalesce(${note}, completion_note),
            completed_at = ${now}, updated_at = ${now}
          WHERE id = ${id} AND status NOT IN ('completed', 'pending_approval', 'cancelled', 'archived')
          RETURNING id`,
        (rows) => rows.length > 0
      ).pipe(Effect.orDie)

    /** Approval (`completed`) or rejection (`in_progress`) of a task awaiting approval. */
    const decide = (id: Ids.TaskId, status: "completed" | "in_progress", now: Date) =>
      sql`UPDATE tasks SET status = ${status}, updated_at = ${now},
            completed_at = CASE WHEN ${status} = 'completed' THEN completed_at ELSE NULL END
          WHERE id = ${id} AND status = 'pending_approval'`.pipe(Effect.orDie)

    const setWave = (id: Ids.TaskId, wave: Date, now: Date) =>
      sql`UPDATE tasks SET wave_scheduled = ${wave}, updated_at = ${now} WHERE id = ${id}`.pipe(Effect.orDie)

    /** The occurrence a completion of `id` created, if any. */
    const nextOccurrence = (id: Ids.TaskId) =>
      Effect.map(sql<{ id: Ids.TaskId }>`SELECT id FROM tasks WHERE recurrence_of = ${id}`, (rows) => rows[0]?.id)
        .pipe(Effect.orDie)

    const byId = (id: Ids.TaskId) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: TaskRow,
        execute: () => sql`SELECT ${columns} FROM tasks t ${joins} WHERE t.id = ${id}`
      })(undefined).pipe(Effect.orDie)

    return {
      /** The task with the caller's access to it, if the caller may see it (a 404 otherwise). */
      visible: (id: Ids.TaskId, caller: Ids.UserId) =>
        Effect.flatMap(Effect.orDie(access({ id, caller })), (row) => visibleTask(id, row)),
      page,
      insert,
      update,
      markCompleted,
      setWave,
      decide,
      nextOccurrence,
      byId,
      /** A task this transaction has just read or written. */
      reread: (id: Ids.TaskId) => Effect.flatMap(byId(id), Effect.orDieWith(() => `task ${id} vanished`))
    } as const
  })
}) {}
