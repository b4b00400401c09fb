import { SqlClient } from "@effect/sql"
import type { Auth } from "@shoal/domain"
import { Effect } from "effect"

/**
 * Principals for many key hashes at once (revoked keys excluded); the socket's batched key check. Each hash is one
 * probe of api_keys' and users' primary keys (LATERAL … LIMIT 1), whatever the statistics: as `key_hash = ANY(…)`
 * the planner, before the first ANALYZE, read every active key through api_keys_active_idx and filtered them (10,000
 * rows for a batch of 60 on the fan-out bench's fresh server, the first lookups of a connect storm ~10 ms each), and
 * with statistics hashed a scan of users: a lookup's cost grew with the table, not the batch (bench/README.md, fanout,
 * conn5).
 */
export class KeysRepo extends Effect.Service<KeysRepo>()("Realtime/KeysRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const principals = (hashes: ReadonlyArray<string>) =>
      sql<{
        readonly id: Auth.Principal["id"]
        readonly handle: Auth.Principal["handle"]
        readonly user_type: Auth.Principal["userType"]
        readonly owner_id: Auth.Principal["ownerId"]
        readonly key_hash: string
      }>`SELECT u.id, u.handle, u.user_type, u.owner_id, k.key_hash
        FROM unnest(${hashes as Array<string>}::text[]) AS h(key_hash)
        CROSS JOIN LATERAL (SELECT k.key_hash, k.user_id FROM api_keys k
          WHERE k.key_hash = h.key_hash AND k.revoked_at IS NULL LIMIT 1) k
        CROSS JOIN LATERAL (SELECT u.id, u.handle, u.user_type, u.owner_id FROM users u
          WHERE u.id = k.user_id LIMIT 1) u`.pipe(
        Effect.map((rows) =>
          new Map(rows.map((r): [string, Auth.Principal] => [r.key_hash, {
            id: r.id,
            handle: r.handle,
            userType: r.user_type,
            ownerId: r.owner_id,
            keyHash: r.key_hash
          }]))
        )
      )

    return { principals } as const
  })
}) {}
