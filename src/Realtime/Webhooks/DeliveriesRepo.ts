import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Events, Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { iso } from "../../Database/SqlArrays.js"
import type { RawEventRow } from "../EventRow.js"

/** A due delivery as claimed: the event's own columns, then the delivery's. */
export interface Claimed extends RawEventRow {
  readonly delivery_id: string
  readonly user_id: Ids.UserId
  readonly attempt_count: number
  readonly webhook_url: string | null
}

// a time as the database gives it (a Date, or text inside json), answered as ISO text
const Iso = Schema.transform(Schema.Union(Schema.DateFromSelf, Schema.String), Schema.String, {
  strict: true,
  decode: (at) => new Date(at).toISOString(),
  encode: (at) => at
})

const Delivery = Schema.compose(
  Schema.Struct({
    ...Events.WebhookDelivery.fields,
    event_cursor: Schema.NumberFromString,
    next_attempt_at: Schema.NullOr(Iso),
    created_at: Iso,
    attempts: Schema.Array(Schema.Struct({ ...Events.WebhookAttempt.fields, attempted_at: Iso }))
  }),
  Events.WebhookDelivery,
  { strict: false }
)

/** Webhook deliveries and their attempt log. Times are the application Clock's, passed in. */
export class DeliveriesRepo extends Effect.Service<DeliveriesRepo>()("Webhooks/DeliveriesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Due deliveries, leased to this worker until `leaseUntil`; SKIP LOCKED lets several nodes share the work.
     * Rows due before `horizon` are left alone: their events are past retention (or were written by a clock that
     * is not ours, as with tests sharing one server). At most `perUser` rows of one account, none of the accounts
     * in `busy` (their receivers already have all the attempts in flight they may; see the worker).
     */
    const claim = (
      now: number,
      horizon: number,
      leaseUntil: number,
      limit: number,
      perUser: number,
      busy: ReadonlyArray<Ids.UserId>
    ) =>
      sql<Claimed>`
        WITH candidates AS (
          SELECT id, user_id, next_attempt_at FROM webhook_deliveries
          WHERE state = 'pending' AND next_attempt_at <= ${iso(now)}::timestamptz
            AND next_attempt_at > ${iso(horizon)}::timestamptz
            AND (locked_until IS NULL OR locked_until <= ${iso(now)}::timestamptz)
            AND ${busy.length === 0 ? sql`TRUE` : sql`user_id NOT IN ${sql.in(busy)}`}
          ORDER BY next_attempt_at LIMIT ${limit * 4}
          FOR UPDATE SKIP LOCKED
        ), due AS (
          SELECT id FROM (
            SELECT id, next_attempt_at,
              row_number() OVER (PARTITION BY user_id ORDER BY next_attempt_at) AS nth
            FROM candidates
          ) ranked
          WHERE nth <= ${perUser}
          ORDER BY next_attempt_at LIMIT ${limit}
        )
        UPDATE webhook_deliveries d SET locked_until = ${iso(leaseUntil)}::timestamptz
        FROM due, events e, users u
        WHERE d.id = due.id AND e.cursor = d.event_cursor AND u.id = d.user_id
        RETURNING d.id AS delivery_id, d.user_id, d.attempt_count, u.webhook_url,
          e.cursor, e.id, e.recipient_id, e.type, e.created_at, e.data::text AS data`

    /** Gives claimed rows back (due as they were) without an attempt. */
    const release = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.void
        : Effect.asVoid(sql`UPDATE webhook_deliveries SET locked_until = NULL WHERE id IN ${sql.in(ids)}`)

    /**
     * Gives back every lease: only for a database one process owns (the embedded one, its data directory locked),
     * where a lease found at start was taken by a process that died during its attempt.
     */
    const releaseAll = Effect.asVoid(
      sql`UPDATE webhook_deliveries SET locked_until = NULL WHERE state = 'pending' AND locked_until IS NOT NULL`
    )

    /** When the next pending delivery after `horizon` falls due (leases included), or null. */
    const nextDue = (horizon: number) =>
      Effect.map(
        sql<{ readonly at: Date | null }>`
          SELECT min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) AS at
          FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at > ${iso(horizon)}::timestamptz`,
        (rows) => rows[0]?.at ? new Date(rows[0].at).getTime() : null
      )

    const record = (input: {
      readonly id: string
      readonly attempt: number
      readonly at: number
      readonly url: string | null
      readonly status: number | null
      readonly error: string | null
      readonly durationMs: number
      readonly state: "pending" | "succeeded" | "failed"
      readonly nextAt: number | null
    }) =>
      Effect.zipRight(
        sql`INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, url, status_code, error, duration_ms)
          VALUES (${input.id}, ${input.attempt}, ${iso(input.at)}::timestamptz, ${input.url}, ${input.status},
            ${input.error === null ? null : input.error.slice(0, 500)}, ${input.durationMs})
          ON CONFLICT (delivery_id, attempt) DO NOTHING`,
        sql`UPDATE webhook_deliveries SET attempt_count = ${input.attempt}, state = ${input.state},
            next_attempt_at = coalesce(${
          input.nextAt === null ? null : iso(input.nextAt)
        }::timestamptz, next_attempt_at),
            locked_until = NULL
          WHERE id = ${input.id}`
      )

    const select = (where: Statement.Fragment, limit: number) =>
      sql`SELECT d.id, d.event_cursor::text AS event_cursor, e.id AS event_id, e.type AS event_type, d.state,
          d.attempt_count, CASE WHEN d.state = 'pending' THEN d.next_attempt_at END AS next_attempt_at, d.created_at,
          coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'attempted_at', a.attempted_at,
              'url', a.url, 'status_code', a.status_code, 'error', a.error, 'duration_ms', a.duration_ms)
              ORDER BY a.attempt)
            FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::json) AS attempts
        FROM webhook_deliveries d JOIN events e ON e.cursor = d.event_cursor
        WHERE ${where}
        ORDER BY d.created_at DESC, d.event_cursor DESC LIMIT ${limit}`

    const list = SqlSchema.findAll({
      Request: Schema.Struct({
        userId: Ids.UserId,
        state: Schema.optional(Schema.String),
        limit: Schema.Number
      }),
      Result: Delivery,
      execute: ({ limit, state, userId }) =>
        select(
          state === undefined ? sql`d.user_id = ${userId}` : sql`d.user_id = ${userId} AND d.state = ${state}`,
          limit
        )
    })

    const find = SqlSchema.findOne({
      Request: Schema.Struct({ userId: Ids.UserId, id: Schema.String }),
      Result: Delivery,
      execute: ({ id, userId }) => select(sql`d.user_id = ${userId} AND d.id = ${id}`, 1)
    })

    /** Due now again, whatever its state (only the caller's). */
    const reschedule = (userId: Ids.UserId, id: string, now: number) =>
      sql`UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ${iso(now)}::timestamptz,
          locked_until = NULL
        WHERE id = ${id} AND user_id = ${userId}`

    const webhookUrl = (userId: Ids.UserId) =>
      Effect.map(
        sql<{ webhook_url: string | null }>`SELECT webhook_url FROM users WHERE id = ${userId}`,
        (rows) => rows[0]?.webhook_url ?? null
      )

    return { claim, release, releaseAll, nextDue, record, list, find, reschedule, webhookUrl } as const
  })
}) {}
