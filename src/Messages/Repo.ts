import { SqlClient } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"
import type { Position } from "../Social/Cursor.js"
import type { Connection } from "./Policy.js"

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

export class MessagesRepo extends Effect.Service<MessagesRepo>()("Messages/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * The ties between S and R that `Policy.deliversAtOnce` weighs (CONTRACT "Direct messages"). R's membership of a
     * shared project or squad counts when it was consented (made by R's side: see migration 0012) or R's side
     * (R or its owner) created the project or squad.
     */
    const connection = (s: Ids.UserId, r: Ids.UserId) =>
      Effect.map(
        sql<Connection>`SELECT
          EXISTS (SELECT 1 FROM follows WHERE follower_id = ${r} AND followee_id = ${s}) AS "recipientFollowsSender",
          EXISTS (SELECT 1 FROM users su, users ru WHERE su.id = ${s} AND ru.id = ${r}
            AND (su.owner_id = ru.id OR ru.owner_id = su.id OR su.owner_id = ru.owner_id)) AS "oneHumanOwnsBoth",
          EXISTS (SELECT 1 FROM messages WHERE sender_id = ${r} AND recipient_id = ${s} AND state = 'delivered')
            AS "recipientWroteBefore",
          EXISTS (SELECT 1 FROM message_approvals WHERE sender_id = ${s} AND recipient_id = ${r}) AS "threadApproved",
          EXISTS (SELECT 1 FROM project_members a JOIN project_members b ON b.project_id = a.project_id
            JOIN projects p ON p.id = b.project_id JOIN users ru ON ru.id = b.user_id
            WHERE a.user_id = ${s} AND b.user_id = ${r}
              AND (b.consented OR p.owner_id = ru.id OR p.owner_id = ru.owner_id)) AS "sharesProjectRecipientJoined",
          EXISTS (SELECT 1 FROM team_members a JOIN team_members b ON b.team_id = a.team_id
            JOIN teams t ON t.id = b.team_id JOIN users ru ON ru.id = b.user_id
            WHERE a.user_id = ${s} AND b.user_id = ${r}
              AND (b.consented OR t.created_by = ru.id OR t.created_by = ru.owner_id)) AS "sharesSquadRecipientJoined"`,
        (rows) => rows[0]!
      ).pipe(Effect.orDie)

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
      ).pipe(Effect.orDie)

    const past = (after: Position | undefined) =>
      after === undefined ? sql`` : sql`AND (m.created_at, m.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`

    const inbox = (r: Ids.UserId, unreadOnly: boolean, limit: number, after?: Position) =>
      Effect.flatMap(
        sql`SELECT m.id, u.handle AS sender_handle, m.content, m.created_at, m.read_at
          FROM messages m JOIN users u ON u.id = m.sender_id
          WHERE m.recipient_id = ${r} AND m.state = 'delivered' ${unreadOnly ? sql`AND m.read_at IS NULL` : sql``}
            ${past(after)}
          ORDER BY m.created_at DESC, m.id DESC LIMIT ${limit}`,
        Schema.decodeUnknown(Schema.Array(InboxRow))
      ).pipe(Effect.orDie)

    /** Whether `id` is a delivered message to `r`. */
    const received = (r: Ids.UserId, id: Ids.MessageId) =>
      Effect.map(
        sql`SELECT 1 FROM messages WHERE id = ${id} AND recipient_id = ${r} AND state = 'delivered'`,
        (rows) => rows.length > 0
      ).pipe(Effect.orDie)

    /** Marks unread delivered messages to `r` read (one, or all); how many changed. */
    const markRead = (r: Ids.UserId, id: Ids.MessageId | undefined, now: Date) =>
      Effect.map(
        sql<{ n: number }>`WITH marked AS (UPDATE messages SET read_at = ${now}
            WHERE recipient_id = ${r} AND state = 'delivered' AND read_at IS NULL
              ${id === undefined ? sql`` : sql`AND id = ${id}`}
            RETURNING 1)
          SELECT count(*)::int AS n FROM marked`,
        (rows) => rows[0]?.n ?? 0
      ).pipe(Effect.orDie)

    /** Requests a human decides (all, or the one with `id`): those to itself and to the agents it owns. */
    const requestsFor = (human: Ids.UserId, id?: Ids.MessageId) =>
      Effect.flatMap(
        sql`SELECT m.id, m.sender_id, m.recipient_id, su.handle AS sender_handle, ru.handle AS recipient_handle,
            m.content, m.created_at
          FROM messages m JOIN users su ON su.id = m.sender_id JOIN users ru ON ru.id = m.recipient_id
          WHERE m.state = 'pending_approval' AND (m.recipient_id = ${human} OR ru.owner_id = ${human})
            ${id === undefined ? sql`` : sql`AND m.id = ${id}`}
          ORDER BY m.created_at, m.id`,
        Schema.decodeUnknown(Schema.Array(RequestRow))
      ).pipe(Effect.orDie)

    const requestFor = (human: Ids.UserId, id: Ids.MessageId) => Effect.map(requestsFor(human, id), (rows) => rows[0])

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
      }).pipe(Effect.orDie)

    /** Drops the waiting messages of the thread s → r; how many. */
    const decline = (s: Ids.UserId, r: Ids.UserId) =>
      Effect.map(
        sql<{ n: number }>`WITH gone AS (DELETE FROM messages
            WHERE sender_id = ${s} AND recipient_id = ${r} AND state = 'pending_approval' RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
        (rows) => rows[0]?.n ?? 0
      ).pipe(Effect.orDie)

    return { connection, insert, inbox, received, markRead, requestsFor, requestFor, approve, decline } as const
  })
}) {}
