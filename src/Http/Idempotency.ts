import { HttpApp, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Errors } from "@shoal/domain"
import { Clock, Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { canonicalJson } from "./CanonicalJson.js"

interface Stored {
  readonly request_hash: string
  readonly route: string
  readonly state: "running" | "done"
  readonly response: unknown
  readonly created_at: Date
}

const RETENTION_MS = 24 * 60 * 60_000
// a "running" row older than this belongs to a request that died with its process: take it over
const ABANDONED_MS = 60_000

/**
 * `Idempotency-Key` with Stripe semantics, scoped to the caller: the first response is stored in the same
 * transaction as the write it reports, and replayed (with `Idempotent-Replayed: true`) for 24 hours.
 * Same key with another body → 409; while the first is still running → 409; a failed request stores nothing.
 */
export class Idempotency extends Effect.Service<Idempotency>()("Http/Idempotency", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const find = (userId: string, key: string) =>
      Effect.map(
        sql<Stored>`SELECT request_hash, route, state, response, created_at FROM idempotency_keys
                    WHERE user_id = ${userId} AND key = ${key}`,
        (rows) => Option.fromNullable(rows[0])
      ).pipe(Effect.orDie)

    const claim = (userId: string, key: string, route: string, hash: string) =>
      Effect.map(
        sql`INSERT INTO idempotency_keys (user_id, key, route, request_hash, state)
            VALUES (${userId}, ${key}, ${route}, ${hash}, 'running') ON CONFLICT DO NOTHING RETURNING key`,
        (rows) => rows.length > 0
      ).pipe(Effect.orDie)

    const takeOver = (userId: string, key: string, hash: string) =>
      Effect.map(
        sql`UPDATE idempotency_keys SET created_at = now(), request_hash = ${hash}
            WHERE user_id = ${userId} AND key = ${key} AND state = 'running'
              AND created_at < now() - make_interval(secs => ${ABANDONED_MS / 1000}) RETURNING key`,
        (rows) => rows.length > 0
      ).pipe(Effect.orDie)

    const release = (userId: string, key: string) =>
      sql`DELETE FROM idempotency_keys WHERE user_id = ${userId} AND key = ${key} AND state = 'running'`

    const replayed = HttpApp.appendPreResponseHandler((_req, res) =>
      Effect.succeed(HttpServerResponse.setHeader(res, "idempotent-replayed", "true"))
    )

    const run = <A, I, E, R>(
      options: {
        readonly userId: string
        readonly key: string | undefined
        readonly route: string
        readonly request: unknown
        readonly response: Schema.Schema<A, I>
      },
      effect: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | Errors.Conflict, R> => {
      const { key, response, route, userId } = options
      if (key === undefined) return effect
      const hash = createHash("sha256").update(route).update("\n").update(canonicalJson(options.request)).digest("hex")
      const execute = Effect.gen(function*() {
        const a = yield* effect
        const body = yield* Effect.orDie(Schema.encode(response)(a))
        yield* Effect.orDie(sql`UPDATE idempotency_keys SET state = 'done', status_code = 200,
                     response = ${JSON.stringify(body)}::jsonb WHERE user_id = ${userId} AND key = ${key}`)
        return a
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die),
        Effect.tapErrorCause(() => Effect.orDie(release(userId, key)))
      )
      return Effect.gen(function*() {
        if (yield* claim(userId, key, route, hash)) return yield* execute
        const existing = yield* find(userId, key)
        // pruned between the two statements: claim again
        if (Option.isNone(existing)) return yield* (yield* claim(userId, key, route, hash)) ? execute : inFlight
        const row = existing.value
        if (row.request_hash !== hash || row.route !== route) {
          return yield* new Errors.Conflict({
            message: "this Idempotency-Key was already used with a different request",
            details: { idempotency_key: key }
          })
        }
        if (row.state === "running") return yield* (yield* takeOver(userId, key, hash)) ? execute : inFlight
        yield* replayed
        return yield* Effect.orDie(Schema.decodeUnknown(response)(row.response))
      })
    }

    const inFlight = Effect.fail(
      new Errors.Conflict({ message: "a request with this Idempotency-Key is still being processed; retry shortly" })
    )

    const prune = Effect.gen(function*() {
      const cutoff = new Date((yield* Clock.currentTimeMillis) - RETENTION_MS)
      yield* sql`DELETE FROM idempotency_keys WHERE created_at < ${cutoff}`
    }).pipe(Effect.catchAll((e) => Effect.logWarning("idempotency prune failed", e)))
    yield* prune.pipe(Effect.delay("1 hour"), Effect.forever, Effect.forkScoped)

    return { run } as const
  })
}) {}
