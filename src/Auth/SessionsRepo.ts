import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"
import * as Revoked from "./Revoked.js"

const SessionPrincipal = Schema.Struct({
  id: Ids.UserId,
  handle: Ids.Handle,
  user_type: Ids.UserType,
  owner_id: Schema.NullOr(Ids.UserId),
  key_hash: Schema.String
})

/** The console's sessions (migrations/0017_console_sessions.ts): only hashes of their tokens. */
export class SessionsRepo extends Effect.Service<SessionsRepo>()("Auth/SessionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (row: { token_hash: string; key_hash: string; expires_at: string }) =>
      sql`INSERT INTO console_sessions (token_hash, key_hash, expires_at)
          VALUES (${row.token_hash}, ${row.key_hash}, ${row.expires_at}::timestamptz)`

    /** The session's account and key, while the session and the key it was made from are both live. */
    const principal = SqlSchema.findOne({
      Request: Schema.String,
      Result: SessionPrincipal,
      execute: (tokenHash) =>
        sql`SELECT u.id, u.handle, u.user_type, u.owner_id, k.key_hash
            FROM console_sessions s
            JOIN api_keys k ON k.key_hash = s.key_hash AND k.revoked_at IS NULL
            JOIN users u ON u.id = k.user_id
            WHERE s.token_hash = ${tokenHash} AND s.revoked_at IS NULL AND s.expires_at > now()`
    })

    /**
     * Ends a live session; true when there was one. In the same statement, so only if it commits, the revocation
     * notice (src/Auth/Revoked.ts) naming the session's token hash: every node closes the sockets it opened.
     */
    const revoke = (tokenHash: string) =>
      Effect.map(
        sql<{ token_hash: string }>`WITH ended AS (
            UPDATE console_sessions SET revoked_at = now()
            WHERE token_hash = ${tokenHash} AND revoked_at IS NULL AND expires_at > now()
            RETURNING token_hash, key_hash)
          SELECT e.token_hash, (SELECT pg_notify(${Revoked.KeysChannel},
              json_build_object('user_id', k.user_id, 'key_hashes', json_build_array(e.token_hash))::text)
            FROM api_keys k WHERE k.key_hash = e.key_hash) AS notified
          FROM ended e`,
        (rows) => rows.length > 0
      )

    return { insert, principal, revoke } as const
  })
}) {}
