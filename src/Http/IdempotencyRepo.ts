import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Effect, Option } from "effect"
import { iso } from "../Database/SqlArrays.js"

export interface StoredResponse {
  readonly request_hash: string
  readonly route: string
  readonly state: "running" | "done"
  readonly response: unknown
}

/** The `idempotency_keys` table: one row per (caller, key), claimed while running, then holding the response. */
export class IdempotencyRepo extends Effect.Service<IdempotencyRepo>()("Http/IdempotencyRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const find = (userId: Ids.UserId, key: string) =>
      Effect.map(
        sql<StoredResponse>`SELECT request_hash, route, state, response FROM idempotency_keys
                    WHERE user_id = ${userId} AND key = ${key}`,
        (rows) => Option.fromNullable(rows[0])
      )

    /**
     * The key's lock for the rest of the transaction; false while another transaction holds it (that request is
     * still running). Held by a transaction, not a row, so a request whose process died holds nothing.
     */
    const lock = (userId: Ids.UserId, key: string) =>
      Effect.map(
        sql<{ readonly locked: boolean }>`SELECT pg_try_advisory_xact_lock(
          hashtextextended(${userId}::text || ' ' || ${key}, 0)) AS locked`,
        (rows) => rows[0]?.locked === true
      )

    /** The answer kept for replay, written in the transaction of the write it reports. */
    const store = (userId: Ids.UserId, key: string, route: string, hash: string, body: unknown, now: number) =>
      sql`INSERT INTO idempotency_keys (user_id, key, route, request_hash, state, status_code, response, created_at)
          VALUES (${userId}, ${key}, ${route}, ${hash}, 'done', 200, ${JSON.stringify(body)}::jsonb,
            ${iso(now)}::timestamptz)
          ON CONFLICT (user_id, key) DO UPDATE SET route = EXCLUDED.route, request_hash = EXCLUDED.request_hash,
            state = 'done', status_code = 200, response = EXCLUDED.response, created_at = EXCLUDED.created_at
          WHERE idempotency_keys.state = 'running'`

    const prune = (before: number) => sql`DELETE FROM idempotency_keys WHERE created_at < ${iso(before)}::timestamptz`

    return { find, lock, store, prune } as const
  })
}) {}
