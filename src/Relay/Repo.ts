import { SqlClient } from "@effect/sql"
import type { Ids, Relay as Api } from "@shoal/domain"
import { Effect } from "effect"
import { iso } from "../Database/SqlArrays.js"

export interface RelayRow {
  readonly id: Api.RelayId
  readonly userId: Ids.UserId
  readonly apiKey: string
  readonly position: number
  readonly deliveryMode: Api.DeliveryMode
  readonly webhookUrl: string | null
  readonly webhookSecret: string | null
  readonly configVersion: number
}

/** A relay leased for a push round, with its failures in a row. */
export interface PushClaim extends RelayRow {
  readonly pushAttempts: number
}

/** All of the relay's SQL. */
export class RelayRepo extends Effect.Service<RelayRepo>()("Relay/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // a cursor is a bigint: as float8 it is a number, exact below 2^53
    const columns = sql`id, user_id AS "userId", api_key AS "apiKey", position::float8 AS position,
      delivery_mode AS "deliveryMode", webhook_url AS "webhookUrl", webhook_secret AS "webhookSecret",
      config_version AS "configVersion"`
    const first = (rows: ReadonlyArray<RelayRow>) => rows[0]

    const forUser = (userId: Ids.UserId) =>
      Effect.map(sql<RelayRow>`SELECT ${columns} FROM relays WHERE user_id = ${userId}`, first)

    const byKeyHash = (keyHash: string) =>
      Effect.map(sql<RelayRow>`SELECT ${columns} FROM relays WHERE key_hash = ${keyHash}`, first)

    /** The agent's relay, created with these values if it has none (two calls at once agree on one). */
    const create = (
      row: { readonly id: string; readonly userId: Ids.UserId; readonly apiKey: string; readonly keyHash: string },
      position: number
    ) =>
      Effect.map(
        sql<RelayRow>`INSERT INTO relays (id, user_id, key_hash, api_key, position)
          VALUES (${row.id}, ${row.userId}, ${row.keyHash}, ${row.apiKey}, ${position})
          ON CONFLICT (user_id) DO UPDATE SET id = relays.id
          RETURNING ${columns}`,
        (rows) => rows[0]!
      )

    const replaceKey = (userId: Ids.UserId, apiKey: string, keyHash: string) =>
      Effect.map(
        sql<RelayRow>`UPDATE relays SET api_key = ${apiKey}, key_hash = ${keyHash} WHERE user_id = ${userId}
          RETURNING ${columns}`,
        first
      )

    /** Moves the position forward to `cursor`, never back. */
    const advance = (relayId: Api.RelayId, cursor: number) =>
      sql`UPDATE relays SET position = ${cursor} WHERE id = ${relayId} AND position < ${cursor}`.pipe(Effect.asVoid)

    const configure = (relayId: Api.RelayId, config: Pick<RelayRow, "deliveryMode" | "webhookUrl" | "webhookSecret">) =>
      Effect.map(
        sql<RelayRow>`UPDATE relays SET delivery_mode = ${config.deliveryMode}, webhook_url = ${config.webhookUrl},
            webhook_secret = ${config.webhookSecret}, config_version = config_version + 1,
            push_attempts = 0, push_next_at = NULL, push_error = NULL
          WHERE id = ${relayId} RETURNING ${columns}`,
        (rows) => rows[0]!
      )

    const recordResult = (
      relayId: Api.RelayId,
      eventId: string,
      result: { readonly status: string; readonly errorReason: string | null; readonly executedAt: string | null }
    ) =>
      sql`INSERT INTO relay_results (relay_id, event_id, status, error_reason, executed_at)
        VALUES (${relayId}, ${eventId}, ${result.status}, ${result.errorReason}, ${result.executedAt}::timestamptz)
        ON CONFLICT (relay_id, event_id) DO UPDATE SET status = EXCLUDED.status,
          error_reason = EXCLUDED.error_reason, executed_at = EXCLUDED.executed_at, recorded_at = now()`.pipe(
        Effect.asVoid
      )

    /** Tasks' descriptions, which the relay's task.assigned carries and Shoal's event does not. */
    const taskDescriptions = (taskIds: ReadonlyArray<string>) =>
      taskIds.length === 0
        ? Effect.succeed(new Map<string, string>())
        : Effect.map(
          sql<{ readonly id: string; readonly description: string }>`SELECT id::text AS id, description FROM tasks
            WHERE id::text IN ${sql.in(taskIds)}`,
          (rows) => new Map(rows.map((r) => [r.id, r.description]))
        )

    /**
     * Leases up to `limit` pushing relays that are due and have events after their position (a fan-out not yet
     * expanded waits for the expander), until `leaseEnd`; nodes pushing at once take different relays.
     */
    const claimPush = (now: number, leaseEnd: number, limit: number) =>
      sql<PushClaim>`UPDATE relays r SET push_locked_until = ${iso(leaseEnd)}
          FROM (SELECT id AS claimed FROM relays
            WHERE delivery_mode = 'push' AND webhook_url IS NOT NULL
              AND (push_next_at IS NULL OR push_next_at <= ${iso(now)}::timestamptz)
              AND (push_locked_until IS NULL OR push_locked_until <= ${iso(now)}::timestamptz)
              AND EXISTS (SELECT 1 FROM events e WHERE e.recipient_id = relays.user_id AND e.cursor > relays.position)
            ORDER BY push_next_at NULLS FIRST LIMIT ${limit} FOR UPDATE SKIP LOCKED) c
          WHERE r.id = c.claimed
          RETURNING ${columns}, push_attempts AS "pushAttempts"`

    /** A push round ended: delivered up to `cursor` (if any), and failed since `attempts` times in a row. */
    const pushed = (
      relayId: Api.RelayId,
      outcome: { readonly attempts: number; readonly nextAt: number | null; readonly error: string | null }
    ) =>
      sql`UPDATE relays SET push_attempts = ${outcome.attempts},
          push_next_at = ${outcome.nextAt === null ? null : iso(outcome.nextAt)}::timestamptz,
          push_error = ${outcome.error}, push_locked_until = NULL
        WHERE id = ${relayId}`.pipe(Effect.asVoid)

    /** When the next pushing relay is due (null: none waits on a retry). */
    const nextPushDue = Effect.map(
      sql<{ readonly due: Date | string | null }>`SELECT min(push_next_at) AS due FROM relays
        WHERE delivery_mode = 'push' AND push_next_at IS NOT NULL`,
      (rows) => {
        const due = rows[0]?.due ?? null
        return due === null ? null : new Date(due).getTime()
      }
    )

    return {
      forUser,
      byKeyHash,
      create,
      replaceKey,
      advance,
      configure,
      recordResult,
      taskDescriptions,
      claimPush,
      pushed,
      nextPushDue
    }
  })
}) {}
