import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Social } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"

/** Event types that are not notifications: clock ticks and presence, which agents follow on the stream. */
export const NOT_NOTIFICATIONS = ["wave.phase", "presence.changed"] as const

const NotificationRows = Schema.Array(
  Schema.Struct({ ...Social.Notification.fields, data: Schema.parseJson(), created_at: IsoFromDate })
)

/**
 * Notifications are the caller's stored events (the outbox's rows, the same stream as the socket and webhooks);
 * only what was read is stored here: every event up to a cursor, and single events read beyond it.
 */
export class NotificationsRepo extends Effect.Service<NotificationsRepo>()("Notifications/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const mark = (user: Ids.UserId) =>
      sql`coalesce((SELECT read_through FROM notification_marks WHERE user_id = ${user}), 0)`

    const list = (user: Ids.UserId, unreadOnly: boolean, limit: number) =>
      sql`SELECT * FROM (
          SELECT e.cursor::text AS cursor, e.id, e.type, e.created_at, e.data::text AS data,
            (e.cursor <= ${mark(user)} OR EXISTS (SELECT 1 FROM notification_reads r
              WHERE r.user_id = ${user} AND r.event_cursor = e.cursor)) AS is_read
          FROM events e
          WHERE e.recipient_id = ${user} AND e.type NOT IN ${sql.in(NOT_NOTIFICATIONS)}
            ${unreadOnly ? sql`AND e.cursor > ${mark(user)}` : sql``}
          ORDER BY e.cursor DESC
        ) n ${unreadOnly ? sql`WHERE NOT n.is_read` : sql``} LIMIT ${limit}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(NotificationRows)),
        Effect.orDie
      )

    /** The cursor of the caller's notification with this id, if it is one. */
    const find = (user: Ids.UserId, id: string, cursor: number) =>
      Effect.map(
        sql<{ cursor: string }>`SELECT cursor::text AS cursor FROM events
          WHERE cursor = ${cursor} AND recipient_id = ${user} AND id = ${id}
            AND type NOT IN ${sql.in(NOT_NOTIFICATIONS)}`,
        (rows) => rows.length > 0
      ).pipe(Effect.orDie)

    /** Marks one read; 1 when it was unread. */
    const markOne = (user: Ids.UserId, cursor: number) =>
      Effect.map(
        sql<{ n: number }>`WITH ins AS (INSERT INTO notification_reads (user_id, event_cursor)
            SELECT ${user}, ${cursor} WHERE ${cursor} > ${mark(user)}
            ON CONFLICT DO NOTHING RETURNING 1)
          SELECT count(*)::int AS n FROM ins`,
        (rows) => rows[0]?.n ?? 0
      ).pipe(Effect.orDie)

    /** Marks everything up to the newest event read; how many were unread. */
    const markAll = (user: Ids.UserId) =>
      Effect.gen(function*() {
        const counted = yield* sql<{ n: number; newest: string | null }>`SELECT count(*) FILTER (WHERE e.cursor > ${
          mark(user)
        } AND NOT EXISTS (SELECT 1 FROM notification_reads r WHERE r.user_id = ${user} AND r.event_cursor = e.cursor)
            AND e.type NOT IN ${sql.in(NOT_NOTIFICATIONS)})::int AS n, max(e.cursor)::text AS newest
          FROM events e WHERE e.recipient_id = ${user}`
        const newest = counted[0]?.newest
        if (newest === null || newest === undefined) return 0
        yield* sql`INSERT INTO notification_marks (user_id, read_through) VALUES (${user}, ${newest}::bigint)
          ON CONFLICT (user_id) DO UPDATE SET read_through = greatest(notification_marks.read_through,
            EXCLUDED.read_through)`
        yield* sql`DELETE FROM notification_reads WHERE user_id = ${user} AND event_cursor <= ${newest}::bigint`
        return counted[0]?.n ?? 0
      }).pipe(Effect.orDie)

    return { list, find, markOne, markAll } as const
  })
}) {}
