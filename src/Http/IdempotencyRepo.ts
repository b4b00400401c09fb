import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Effect, Option } from "effect"

export interface StoredResponse {
  readonly request_hash: string
  readonly route: string
  readonly state: "running" | "done"
  readonly response: unknown
}

const iso = (millis: number) => new Date(millis).toISOString()

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

    /** True when this request now owns the key. */
    const claim = (userId: Ids.UserId, key: string, route: string, hash: string, now: number) =>
      Effect.map(
        sql`INSERT INTO idempotency_keys (user_id, key, route, request_hash, state, created_at)
            VALUES (${userId}, ${key}, ${route}, ${hash}, 'running', ${iso(now)}::timestamptz)
            ON CONFLICT DO NOTHING RETURNING key`,
        (rows) => rows.length > 0
      )

    /** Takes over a claim still "running" since before `abandonedBefore` (its process died); true when taken. */
    const takeOver = (userId: Ids.UserId, key: string, hash: string, now: number, abandonedBefore: number) =>
      Effect.map(
        sql`UPDATE idempotency_keys SET created_at = ${iso(now)}::timestamptz, request_hash = ${hash}
            WHERE user_id = ${userId} AND key = ${key} AND state = 'running'
              AND created_at < ${iso(abandonedBefore)}::timestamptz RETURNING key`,
        (rows) => rows.length > 0
      )

    const complete = (userId: Ids.UserId, key: string, body: unknown) =>
      sql`UPDATE idempotency_keys SET state = 'done', status_code = 200, response = ${JSON.stringify(body)}::jsonb
          WHERE user_id = ${userId} AND key = ${key}`

    const release = (userId: Ids.UserId, key: string) =>
      sql`DELETE FROM idempotency_keys WHERE user_id = ${userId} AND key = ${key} AND state = 'running'`

    const prune = (before: number) => sql`DELETE FROM idempotency_keys WHERE created_at < ${iso(before)}::timestamptz`

    return { find, claim, takeOver, complete, release, prune } as const
  })
}) {}
