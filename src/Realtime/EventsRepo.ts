import { SqlClient, type Statement } from "@effect/sql"
import { Effect } from "effect"
import { sqlArray } from "../Database/SqlArrays.js"
import { type BlockRows, type EventRow, fromRaw, type RawEventRow } from "./EventRow.js"

/**
 * NOTIFY channels: "a block of events starting at this cursor committed", "webhook deliveries are due", and "a
 * large fan-out waits to be expanded".
 */
export const EventsChannel = "shoal_events"
export const WebhooksChannel = "shoal_webhooks"
export const FanoutsChannel = "shoal_fanouts"

// any constant: the one advisory lock that orders event inserts on a real server (see Outbox.ts)
export const ORDER_LOCK = 0x5e0a1
/**
 * The order lock as a statement of its own: the prelude of a server's pipelined COMMIT (src/Database/CommitScript.ts),
 * ahead of its inserts. An insert that reads users (`hooked`: who has a webhook_url) must take its snapshot AFTER
 * the lock: a statement's snapshot is taken when it starts, so one that waited for the lock inside itself would not
 * see what the transactions ordered before it committed meanwhile, and an event after the PATCH that set a
 * webhook_url in the stream would have no delivery (test/Realtime/Webhooks/Webhooks.test.ts, "ordered after").
 */
export const LOCK_ORDER = `SELECT pg_advisory_xact_lock(${ORDER_LOCK})`

/** What an insert of events answers: its first cursor and the transaction's time. */
interface BlockHead {
  readonly lo: string
  readonly created_at: Date | string
}

/** The first cursor and creation time from an insert's rows (`insertBlock`'s or `insertFanout`'s). */
export const blockHead = (r: ReadonlyArray<BlockHead>) => ({
  lo: Number(r[0]!.lo),
  createdAt: (r[0]!.created_at instanceof Date ? r[0]!.created_at : new Date(r[0]!.created_at)).toISOString()
})

/** A fan-out's rows: many recipients, one type and JSON text. */
type FanoutRows = BlockRows & { readonly types: string; readonly datas: string }

export class EventsRepo extends Effect.Service<EventsRepo>()("Realtime/EventsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`cursor, id, recipient_id, type, created_at, data::text AS data`
    /** An event's id: its cursor in hex and the emit's salt (see EventRow.eventId, its twin in memory). */
    const eventId = (cursor: string, salt: Statement.Fragment | string) =>
      sql`'evt_' || lpad(to_hex(${sql.literal(cursor)}), 16, '0') || ${salt}`
    const fanoutId = eventId("f.lo + x.n - 1", sql.literal("f.salt"))

    /**
     * The start of an insert's CTE: `block` (lo, the first cursor) and `reserved` (hi, the last) for `n` events. In
     * one statement with the insert, so an emit costs one round trip, not two.
     */
    const reserve = (n: number) =>
      sql`WITH block AS (SELECT nextval('events_cursor_seq') AS lo),
        reserved AS (SELECT setval('events_cursor_seq', lo + ${n}::bigint - 1) AS hi FROM block)`

    /**
     * A CTE `hooked`: a webhook delivery, due at `due`, for each row (c = cursor, r = recipient) of `source` whose
     * recipient has a webhook_url; one probe of the partial index users_webhook_idx per row. (A one-time "any
     * webhook at all?" check was planned as a scan of users whenever statistics were stale: 1.5 ms of every emit.)
     */
    const hooked = (source: string, due: Statement.Fragment) =>
      sql`hooked AS (
          INSERT INTO webhook_deliveries (event_cursor, user_id, next_attempt_at)
          SELECT s.c, s.r, ${due} FROM ${sql.literal(source)} s JOIN users u ON u.id = s.r
          WHERE u.webhook_url IS NOT NULL
          RETURNING 1
        )`
    /** Wakes the webhook worker only when `hooked` gave it something to do. */
    const wakeWebhooks =
      sql`(SELECT count(*) FROM (SELECT pg_notify(${WebhooksChannel}, 'due') FROM (SELECT 1 FROM hooked LIMIT 1) h) w)`

    /**
     * One statement: a contiguous block of cursors reserved for these rows (nextval, then setval past the block:
     * emits are serialized, see Outbox.ts), the events, a webhook delivery for each recipient with a webhook_url,
     * and a NOTIFY carrying the block's first cursor and its salt ("12 3f…", see Blocks), which PostgreSQL sends
     * only if the transaction commits. It takes no lock: on a server it runs after LOCK_ORDER, pipelined with its transaction's COMMIT (src/Realtime/Outbox.ts).
     * Ids are the cursor in hex plus a random salt per emit: unique, and cheap to compute here and in memory.
     */
    const insertBlock = (rows: BlockRows, salt: string, now: Date) => {
      const input = typeof rows.types === "string" && typeof rows.datas === "string"
        // one shared payload: parsed once, not once per recipient
        ? sql`SELECT lo + x.n - 1 AS c, x.r, k.t, k.d
            FROM block, (SELECT ${rows.types}::text AS t, ${rows.datas}::json AS d) k,
              unnest(${sqlArray(rows.recipients)}::uuid[]) WITH ORDINALITY AS x(r, n)`
        : sql`SELECT lo + x.n - 1 AS c, x.r, x.t, x.d::json AS d
            FROM block, unnest(${sqlArray(rows.recipients)}::uuid[], ${rows.types as Array<string>}::text[],
              ${rows.datas as Array<string>}::text[]) WITH ORDINALITY AS x(r, t, d, n)`
      return sql<BlockHead>`
        ${reserve(rows.recipients.length)},
        input AS (${input}),
        inserted AS (
          INSERT INTO events (cursor, id, recipient_id, type, data)
          SELECT c, ${eventId("c", salt)}, r, t, d FROM input
        ),
        ${hooked("input", sql`${now.toISOString()}::timestamptz`)}
        SELECT lo::text AS lo, now() AS created_at, pg_notify(${EventsChannel}, lo::text || ' ' || ${salt}),
          (SELECT hi FROM reserved),
          ${wakeWebhooks}
        FROM block`
    }

    /**
     * The events after `cursor`, in order: every recipient's (what the dispatcher fans out), or one recipient's
     * (replay on a socket, and polling). Events rows and the not yet expanded recipients of fan-outs in one
     * statement: one snapshot, so a chunk being expanded meanwhile is seen on one side or the other, never on both
     * or neither.
     */
    const after = (cursor: number, limit: number, recipientId?: string) => {
      const mine = (column: string) =>
        recipientId === undefined ? sql`` : sql`AND ${sql.literal(column)} = ${recipientId}::uuid`
      return Effect.map(
        sql<RawEventRow>`SELECT * FROM (
            (SELECT ${columns} FROM events
              WHERE cursor > ${cursor} ${mine("recipient_id")} ORDER BY cursor LIMIT ${limit})
            UNION ALL (
              SELECT f.lo + x.n - 1 AS cursor, ${fanoutId} AS id, x.r::uuid AS recipient_id, f.type,
                f.created_at, f.data::text AS data
              FROM event_fanouts f, unnest(string_to_array(f.recipients, ',')) WITH ORDINALITY AS x(r, n)
              WHERE f.hi > ${cursor} AND x.n > f.expanded AND f.lo + x.n - 1 > ${cursor} ${mine("x.r::uuid")})
          ) e ORDER BY cursor LIMIT ${limit}`,
        (rows): Array<EventRow> => rows.map(fromRaw)
      )
    }

    const head = Effect.map(
      sql<{ readonly head: string | null }>`SELECT greatest(
          (SELECT max(cursor) FROM events), (SELECT max(hi) FROM event_fanouts))::text AS head`,
      (rows) => Number(rows[0]?.head ?? 0)
    )

    /**
     * The last cursor handed out by the sequence, on any node, committed or not (0 before the first): no client was
     * ever sent a cursor beyond it. One row read, not an index scan, and unlike `head` it does not move back when
     * retention prunes the newest events.
     */
    const newest = Effect.map(
      sql<{ readonly newest: string }>`SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::text AS newest
        FROM events_cursor_seq`,
      (rows) => Number(rows[0]?.newest ?? 0)
    )

    /**
     * A large emit with one payload: its block of cursors and ONE row holding the recipients (see
     * migrations/0004_event_fanouts.ts), and a NOTIFY for the dispatcher (with the salt, as a block's) and one for
     * the expander.
     */
    const insertFanout = (rows: FanoutRows, salt: string, now: Date) =>
      sql<BlockHead>`
        ${reserve(rows.recipients.length)},
        inserted AS (
          INSERT INTO event_fanouts (lo, hi, salt, type, data, recipients, due_at)
          SELECT lo, hi, ${salt}, ${rows.types}, ${rows.datas}::json, ${rows.recipients.join(",")},
            ${now.toISOString()}::timestamptz
          FROM block, reserved
        )
        SELECT lo::text AS lo, now() AS created_at, pg_notify(${EventsChannel}, lo::text || ' ' || ${salt}),
          pg_notify(${FanoutsChannel}, lo::text)
        FROM block`

    /**
     * Expands the next chunk of the oldest fan-out into events rows (and webhook deliveries), in one statement; a
     * fan-out fully expanded is deleted. On a server, nodes expanding at once take different fan-outs (SKIP LOCKED).
     * Returns false when there was nothing to do.
     */
    const expandChunk = (chunk: number) =>
      Effect.map(
        sql<{ readonly found: number }>`
          WITH f AS (SELECT lo, hi, salt, type, data, recipients, expanded, created_at, due_at
            FROM event_fanouts ORDER BY lo LIMIT 1 FOR UPDATE SKIP LOCKED),
          x AS (
            SELECT f.lo + x.n - 1 AS c, x.r::uuid AS r, ${fanoutId} AS id, f.type, f.data,
              f.created_at, f.due_at
            FROM f, unnest(string_to_array(f.recipients, ',')) WITH ORDINALITY AS x(r, n)
            WHERE x.n > f.expanded AND x.n <= f.expanded + ${chunk}
          ),
          inserted AS (
            INSERT INTO events (cursor, id, recipient_id, type, data, created_at)
            SELECT c, id, r, type, data, created_at FROM x
          ),
          ${hooked("x", sql.literal("s.due_at"))},
          progressed AS (
            UPDATE event_fanouts e SET expanded = f.expanded + ${chunk} FROM f
            WHERE e.lo = f.lo AND f.expanded + ${chunk} < f.hi - f.lo + 1
          ),
          done AS (DELETE FROM event_fanouts e USING f WHERE e.lo = f.lo AND f.expanded + ${chunk} >= f.hi - f.lo + 1)
          SELECT (SELECT count(*)::int FROM f) AS found, ${wakeWebhooks}`,
        (rows) => (rows[0]?.found ?? 0) > 0
      )

    /** Deletes a batch of events older than the retention window (database time); the count deleted. */
    const prune = (days: number, batch: number) =>
      Effect.map(
        sql<{ readonly n: number }>`WITH gone AS (
          DELETE FROM events WHERE cursor IN (
            SELECT cursor FROM events WHERE created_at < now() - make_interval(days => ${days}) LIMIT ${batch})
          RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
        (rows) => rows[0]?.n ?? 0
      )

    const notify = (channel: string, payload: string) =>
      sql`SELECT pg_notify(${channel}, ${payload})`.pipe(Effect.asVoid)

    return { insertBlock, insertFanout, expandChunk, after, head, newest, prune, notify } as const
  })
}) {}
