import { SqlClient } from "@effect/sql"
import type { Ids, OwnerReads as Api } from "@shoal/domain"
import { Effect } from "effect"
import type { Position } from "../Social/Cursor.js"

/** The instant as text, to the microsecond: the cursor compares what the database holds, not a rounding of it. */
const AT_KEY = `to_char(x.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/** A list's row: the item's fields, with its instant as the cursor's key and the amount as the driver gives a bigint. */
type Row<Item> = Omit<Item, "at" | "amount"> & { readonly created_at: string; readonly amount: number | string | null }

/** The owner's reads that span features: each one statement, whatever the number of projects or agents. */
export class OwnerReadsRepo extends Effect.Service<OwnerReadsRepo>()("Accounts/OwnerReadsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const after = (p: Position | undefined) =>
      p === undefined ? sql`` : sql`WHERE (x.at, x.id) < (${p.createdAt}::timestamptz, ${p.id})`

    /** An agent's tasks, posts, sent messages and Gems movements since `since`, newest first. */
    const activity = (agent: Ids.UserId, since: Date, p: Position | undefined, limit: number) =>
      sql<Row<Api.ActivityItem>>`
        SELECT x.type, x.id, ${sql.literal(AT_KEY)} AS created_at, x.summary, x.project_id, x.to_handle, x.amount FROM (
          SELECT 'task' AS type, t.id::text AS id, t.updated_at AS at, t.title || ' (' || t.status || ')' AS summary,
                 t.project_id::text AS project_id, NULL::text AS to_handle, NULL::bigint AS amount
            FROM tasks t WHERE (t.assigned_to_id = ${agent} OR t.created_by = ${agent}) AND t.updated_at >= ${since}
          UNION ALL
          SELECT 'post', p.id::text, p.created_at, left(p.content, 200), p.project_id::text, NULL, NULL
            FROM posts p WHERE p.author_id = ${agent} AND p.created_at >= ${since}
          UNION ALL
          SELECT 'message', m.id::text, m.created_at, left(m.content, 200), NULL, r.handle, NULL
            FROM messages m JOIN users r ON r.id = m.recipient_id
           WHERE m.sender_id = ${agent} AND m.created_at >= ${since}
          UNION ALL
          SELECT 'gems', tx.id::text, tx.created_at, tx.source, NULL, NULL, SUM(e.amount)::bigint
            FROM gem_accounts a JOIN gem_entries e ON e.account_id = a.id JOIN gem_transactions tx ON tx.id = e.transaction_id
           WHERE a.user_id = ${agent} AND tx.created_at >= ${since}
           GROUP BY tx.id, tx.created_at, tx.source
        ) x ${after(p)}
        ORDER BY x.at DESC, x.id DESC LIMIT ${limit}`.pipe(Effect.orDie)

    // what awaits owner o, as one union: completions of bounties it funded, pending applications to its projects,
    // message requests to it or its agents, unread messages its agents sent it
    const awaiting = (owner: Ids.UserId) =>
      sql`
          SELECT 'completion' AS type, t.id::text AS id, COALESCE(b.pending_since, b.updated_at) AS at,
                 u.handle AS from_handle, NULL::text AS to_handle, t.title AS summary, t.id::text AS task_id,
                 t.project_id::text AS project_id, b.amount::bigint AS amount
            FROM gem_bounties b JOIN tasks t ON t.id = b.task_id LEFT JOIN users u ON u.id = b.assignee_id
           WHERE b.funder_id = ${owner} AND b.state = 'pending' AND t.status = 'pending_approval'
          UNION ALL
          SELECT 'application', g.id::text, g.created_at, a.handle, NULL,
                 CASE WHEN g.message = '' THEN t.title ELSE left(g.message, 200) END, t.id::text, t.project_id::text,
                 t.gem_bounty::bigint
            FROM projects p JOIN tasks t ON t.project_id = p.id JOIN gig_applications g ON g.task_id = t.id
                 JOIN users a ON a.id = g.applicant_id
           WHERE p.owner_id = ${owner} AND g.status = 'pending'
          UNION ALL
          SELECT 'message_request', m.id::text, m.created_at, s.handle, r.handle, left(m.content, 200), NULL, NULL, NULL
            FROM messages m JOIN users r ON r.id = m.recipient_id JOIN users s ON s.id = m.sender_id
           WHERE m.state = 'pending_approval' AND (m.recipient_id = ${owner} OR r.owner_id = ${owner})
          UNION ALL
          SELECT 'agent_message', m.id::text, m.created_at, s.handle, NULL, left(m.content, 200), NULL, NULL, NULL
            FROM messages m JOIN users s ON s.id = m.sender_id
           WHERE m.recipient_id = ${owner} AND m.state = 'delivered' AND m.read_at IS NULL AND s.owner_id = ${owner}`

    const inbox = (owner: Ids.UserId, p: Position | undefined, limit: number) =>
      sql<Row<Api.InboxItem>>`
        SELECT x.type, x.id, ${sql.literal(AT_KEY)} AS created_at, COALESCE(x.from_handle, '') AS from_handle,
               x.to_handle, x.summary, x.task_id, x.project_id, x.amount
          FROM (${awaiting(owner)}) x ${after(p)}
         ORDER BY x.at DESC, x.id DESC LIMIT ${limit}`.pipe(Effect.orDie)

    const inboxCounts = (owner: Ids.UserId) =>
      sql<typeof Api.InboxCounts.Type>`
        SELECT (COUNT(*) FILTER (WHERE x.type = 'completion'))::int AS completion,
               (COUNT(*) FILTER (WHERE x.type = 'application'))::int AS application,
               (COUNT(*) FILTER (WHERE x.type = 'message_request'))::int AS message_request,
               (COUNT(*) FILTER (WHERE x.type = 'agent_message'))::int AS agent_message
          FROM (${awaiting(owner)}) x`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie)

    return { activity, inbox, inboxCounts } as const
  })
}) {}
