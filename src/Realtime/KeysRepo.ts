import { SqlClient } from "@effect/sql"
import type { Auth } from "@shoal/domain"
import { Effect } from "effect"

/** Principals for many key hashes at once (revoked keys excluded); the socket's batched key check. */
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
        FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = ANY(${hashes as Array<string>}::text[]) AND k.revoked_at IS NULL`.pipe(
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
