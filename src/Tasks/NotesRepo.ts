import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, flow, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"

export const CommentRow = Schema.Struct({
  id: Ids.CommentId,
  task_id: Ids.TaskId,
  content: Schema.String,
  author_id: Ids.UserId,
  author_handle: Schema.String,
  author_name: Schema.String,
  created_at: IsoFromDate,
  edited_at: Schema.NullOr(IsoFromDate),
  rb_id: Schema.NullOr(Ids.UserId),
  rb_handle: Schema.NullOr(Ids.Handle),
  rb_name: Schema.NullOr(Schema.String)
})
export type CommentRow = typeof CommentRow.Type

export const ChecklistRow = Schema.Struct({ id: Ids.ChecklistItemId, text: Schema.String, is_checked: Schema.Boolean })
export type ChecklistRow = typeof ChecklistRow.Type

/** Task comments and checklist items. */
export class NotesRepo extends Effect.Service<NotesRepo>()("Tasks/NotesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const select = sql.literal(`SELECT c.id, c.task_id, c.content, c.author_id, u.handle AS author_handle,
        u.display_name AS author_name, c.created_at AS created_at, c.edited_at AS edited_at,
        rb.id AS rb_id, rb.handle AS rb_handle, rb.display_name AS rb_name
      FROM task_comments c JOIN users u ON u.id = c.author_id LEFT JOIN users rb ON rb.id = c.requested_by_id`)

    const comments = flow(
      SqlSchema.findAll({
        Request: Ids.TaskId,
        Result: CommentRow,
        execute: (task) => sql`${select} WHERE c.task_id = ${task} ORDER BY c.created_at, c.id`
      }),
      Effect.orDie
    )

    const comment = flow(
      SqlSchema.findOne({
        Request: Ids.CommentId,
        Result: CommentRow,
        execute: (id) => sql`${select} WHERE c.id = ${id}`
      }),
      Effect.orDie
    )

    const insertComment = (
      v: { task: Ids.TaskId; author: Ids.UserId; content: string; requestedBy: Ids.UserId | null; now: Date }
    ) =>
      Effect.map(
        sql<{ id: Ids.CommentId }>`
          INSERT INTO task_comments (task_id, author_id, content, requested_by_id, created_at)
          VALUES (${v.task}, ${v.author}, ${v.content}, ${v.requestedBy}, ${v.now}) RETURNING id`,
        (rows) => rows[0]!.id
      ).pipe(Effect.orDie)

    const editComment = (id: Ids.CommentId, content: string, requestedBy: Ids.UserId | null, now: Date) =>
      sql`UPDATE task_comments SET content = ${content}, edited_at = ${now},
            requested_by_id = coalesce(${requestedBy}::uuid, requested_by_id)
          WHERE id = ${id}`.pipe(Effect.orDie)

    const checklist = flow(
      SqlSchema.findAll({
        Request: Ids.TaskId,
        Result: ChecklistRow,
        execute: (task) =>
          sql`SELECT id, text, is_checked FROM task_checklist_items WHERE task_id = ${task} ORDER BY position`
      }),
      Effect.orDie
    )

    const addItems = (task: Ids.TaskId, items: ReadonlyArray<{ text: string; is_checked: boolean }>, now: Date) =>
      items.length === 0 ? Effect.succeed([] as ReadonlyArray<ChecklistRow>) : SqlSchema.findAll({
        Request: Schema.Void,
        Result: ChecklistRow,
        execute: () =>
          sql`INSERT INTO task_checklist_items ${
            sql.insert(items.map((i) => ({ task_id: task, text: i.text, is_checked: i.is_checked, created_at: now })))
          } RETURNING id, text, is_checked`
      })(undefined).pipe(Effect.orDie)

    /** The next occurrence of a recurring task starts with the same checklist, unchecked. */
    const copyItems = (from: Ids.TaskId, to: Ids.TaskId, now: Date) =>
      sql`INSERT INTO task_checklist_items (task_id, text, is_checked, created_at)
          SELECT ${to}::uuid, text, false, ${now}::timestamptz FROM task_checklist_items
          WHERE task_id = ${from} ORDER BY position`.pipe(Effect.orDie)

    const setItem = (task: Ids.TaskId, item: Ids.ChecklistItemId, checked: boolean | undefined) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: ChecklistRow,
        execute: () =>
          sql`UPDATE task_checklist_items
              SET is_checked = ${checked === undefined ? sql`NOT is_checked` : sql`${checked}`}
              WHERE id = ${item} AND task_id = ${task} RETURNING id, text, is_checked`
      })(undefined).pipe(Effect.orDie)

    return { comments, comment, insertComment, editComment, checklist, addItems, copyItems, setItem } as const
  })
}) {}
