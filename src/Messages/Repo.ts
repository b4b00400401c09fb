import { SqlClient } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"
import type { Position } from "../Social/Cursor.js"

export const InboxRow = Schema.Struct({
  id: Ids.MessageId,
  sender_handle: Schema.String,
  content: Schema.String,
  created_at: IsoFromDate,
  read_at: Schema.NullOr(IsoFromDate)
})

export const RequestRow = Schema.Struct({
  id: Ids.MessageId,
  sender_id: Ids.UserId,
  recipient_id: Ids.UserId,
  sender_handle: Schema.String,
  recipient_handle: Schema.String,
  content: Schema.String,
  created_at: IsoFromDate
})
export type RequestRow = typeof RequestRow.Type

const decodeInbox = Schema.decodeUnknown(Schema.Array(InboxRow))
const decodeRequests = Schema.decodeUnknown(Schema.Array(RequestRow))

export class MessagesRepo extends Effect.Service<MessagesRepo>()("Messages/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * CONTRACT "Direct messages": S may write to R at once when R follows S, they share a project or a squad, one
     * human owns both or owns the other, R has written to S before, or the thread S → R was approved.
     */
    const connected = (s: Ids.UserId, r: Ids.UserId) =>
      Effect.map(
        sql<{ connected: boolean }>`SELECT (
          EXISTS (SELECT 1 FROM follows WHERE follower_id = ${r} AND followee_id = ${s})
          OR EXISTS (SELECT 1 FROM project_members a JOIN project_members b ON b.project_id = a.project_id
            WHERE a.user_id = ${s} AND b.user_id = ${r})
          OR EXISTS (SELECT 1 FROM team_members a JOIN team_members b ON b.team_id = a.team_id
            WHERE a.user_id = ${s} AND b.user_id = ${r})
          OR EXISTS (SELECT 1 FROM users su, users ru WHERE su.id = ${s} AND ru.id = ${r}
            AND (su.owner_id = ru.id OR ru.owner_id = su.id OR su.owner_id = ru.owner_id))
          OR EXISTS (SELECT 1 FROM messages WHERE sender_id = ${r} AND recipient_id = ${s} AND state = 'delivered')
          OR EXISTS (SELECT 1 FROM message_approvals WHERE sender_id = ${s} AND recipient_id = ${r})
        ) AS connected`,
        (rows) => rows[0]?.connected === true
      )

    const insert = (
      s: Ids.UserId,
      r: Ids.UserId,
      content: string,
      state: "delivered" | "pending_approval",
      now: Date
    ) =>
      Effect.map(
        sql<{ id: Ids.MessageId }>`INSERT INTO messages (sender_id, recipient_id, content, state, created_at,
            delivered_at)
          VALUES (${s}, ${r}, ${content}, ${state}, ${now}, ${state === "delivered" ? now : null}) RETURNING id`,
        (rows) => rows[0]!.id
      )

    const inbox = (r: Ids.UserId, unreadOnly: boolean, limit: number, after: Position | undefined) =>
      Effect.flatMap(
        sql`SELECT m.id, u.handle AS sender_handle, m.content, m.created_at, m.read_at
          FROM messages m JOIN users u ON u.id = m.sender_id
          WHERE m.recipient_id = ${r} AND m.state = 'delivered' ${unreadOnly ? sql`AND m.read_at IS NULL` : sql``}
            ${
          after === undefined
            ? sql``
            : sql`AND (m.created_at, m.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`
        }
          ORDER BY m.created_at DESC, m.id DESC LIMIT ${limit}`,
        decodeInbox
      )

    /** Whether `id` is a delivered message to `r`. */
    const received = (r: Ids.UserId, id: Ids.MessageId) =>
      Effect.map(
        sql`SELECT 1 FROM messages WHERE id = ${id} AND recipient_id = ${r} AND state = 'delivered'`,
        (rows) => rows.length > 0
      )

    /** Marks unread delivered messages to `r` read (one, or all); how many changed. */
    const markRead = (r: Ids.UserId, id: Ids.MessageId | undefined, now: Date) =>
      Effect.map(
        sql<{ n: number }>`WITH marked AS (UPDATE messages SET read_at = ${now}
            WHERE recipient_id = ${r} AND state = 'delivered' AND read_at IS NULL
              ${id === undefined ? sql`` : sql`AND id = ${id}`}
            RETURNING 1)
          SELECT count(*)::int AS n FROM marked`,
        (rows) => rows[0]?.n ?? 0
      )

    const requestColumns = sql`m.id, m.sender_id, m.recipient_id, su.handle AS sender_handle,
      ru.handle AS recipient_handle, m.content, m.created_at`

    /** Requests a human decides: those to itself and to the agents it owns. */
    const requestsFor = (human: Ids.UserId) =>
      Effect.flatMap(
        sql`SELECT ${requestColumns} FROM messages m
          JOIN users su ON su.id = m.sender_id JOIN users ru ON ru.id = m.recipient_id
          WHERE m.state = 'pending_approval' AND (m.recipient_id = ${human} OR ru.owner_id = ${human})
          ORDER BY m.created_at, m.id`,
        decodeRequests
      )

    const requestFor = (human: Ids.UserId, id: Ids.MessageId) =>
      Effect.map(
        Effect.flatMap(
          sql`SELECT ${requestColumns} FROM messages m
            JOIN users su ON su.id = m.sender_id JOIN users ru ON ru.id = m.recipient_id
            WHERE m.id = ${id} AND m.state = 'pending_approval'
              AND (m.recipient_id = ${human} OR ru.owner_id = ${human})`,
          decodeRequests
        ),
        (rows) => rows[0]
      )

    /** Approves the thread s → r and delivers its waiting messages; returns them, oldest first. */
    const approve = (s: Ids.UserId, r: Ids.UserId, by: Ids.UserId, now: Date) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO message_approvals (sender_id, recipient_id, approved_by, created_at)
          VALUES (${s}, ${r}, ${by}, ${now}) ON CONFLICT DO NOTHING`
        return yield* sql<{ id: Ids.MessageId; content: string }>`WITH d AS (UPDATE messages
            SET state = 'delivered', delivered_at = ${now}
            WHERE sender_id = ${s} AND recipient_id = ${r} AND state = 'pending_approval'
            RETURNING id, content, created_at)
          SELECT id, content FROM d ORDER BY created_at, id`
      })

    /** Drops the waiting messages of the thread s → r; how many. */
    const decline = (s: Ids.UserId, r: Ids.UserId) =>
      Effect.map(
        sql<{ n: number }>`WITH gone AS (DELETE FROM messages
            WHERE sender_id = ${s} AND recipient_id = ${r} AND state = 'pending_approval' RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
        (rows) => rows[0]?.n ?? 0
      )

    return {
      connected: (s: Ids.UserId, r: Ids.UserId) => Effect.orDie(connected(s, r)),
      insert: (s: Ids.UserId, r: Ids.UserId, c: string, st: "delivered" | "pending_approval", now: Date) =>
        Effect.orDie(insert(s, r, c, st, now)),
      inbox: (r: Ids.UserId, unreadOnly: boolean, limit: number, after?: Position) =>
        Effect.orDie(inbox(r, unreadOnly, limit, after)),
      received: (r: Ids.UserId, id: Ids.MessageId) => Effect.orDie(received(r, id)),
      markRead: (r: Ids.UserId, id: Ids.MessageId | undefined, now: Date) => Effect.orDie(markRead(r, id, now)),
      requestsFor: (h: Ids.UserId) => Effect.orDie(requestsFor(h)),
      requestFor: (h: Ids.UserId, id: Ids.MessageId) => Effect.orDie(requestFor(h, id)),
      approve: (s: Ids.UserId, r: Ids.UserId, by: Ids.UserId, now: Date) => Effect.orDie(approve(s, r, by, now)),
      decline: (s: Ids.UserId, r: Ids.UserId) => Effect.orDie(decline(s, r))
    } as const
  })
}) {}
