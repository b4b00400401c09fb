import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { Effect } from "effect"
import { toPrincipal } from "../Accounts/Repo.js"

/** What a live key stands for: its account, and until when the account's rate limit is extended (ms; 0: not). */
export interface KeyHolder {
  readonly principal: Auth.Principal
  readonly extendedUntil: number
}

/**
 * The key check's reads. Principals for many key hashes at once (revoked keys excluded), with the account's extended
 * rate limit: each hash is one probe of api_keys' and users' primary keys (LATERAL … LIMIT 1), whatever the
 * statistics (as `key_hash = ANY(…)` the planner scanned every active key, or users; bench/README.md, fanout).
 */
export class KeysRepo extends Effect.Service<KeysRepo>()("Auth/KeysRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const holders = (hashes: ReadonlyArray<string>, now: Date) =>
      sql<{
        readonly id: Ids.UserId
        readonly handle: Ids.Handle
        readonly user_type: Ids.UserType
        readonly owner_id: Ids.UserId | null
        readonly key_hash: string
        readonly held: boolean
        readonly expires_at: Date | null
      }>`SELECT u.id, u.handle, u.user_type, u.owner_id, k.key_hash, p.user_id IS NOT NULL AS held, p.expires_at
        FROM unnest(${hashes as Array<string>}::text[]) AS h(key_hash)
        CROSS JOIN LATERAL (SELECT k.key_hash, k.user_id FROM api_keys k
          WHERE k.key_hash = h.key_hash AND k.revoked_at IS NULL LIMIT 1) k
        CROSS JOIN LATERAL (SELECT u.id, u.handle, u.user_type, u.owner_id FROM users u
          WHERE u.id = k.user_id LIMIT 1) u
        LEFT JOIN premium_features p ON p.user_id = u.id AND p.feature_id = 'extended_rate_limits_30d'
          AND (p.expires_at IS NULL OR p.expires_at > ${now})`.pipe(
        Effect.map((rows) =>
          new Map(rows.map((r): [string, KeyHolder] => [r.key_hash, {
            principal: toPrincipal(r, r.key_hash),
            extendedUntil: !r.held ? 0 : r.expires_at === null ? Infinity : r.expires_at.getTime()
          }]))
        )
      )

    /** Of these hashes, those of live keys and of live console sessions (src/Auth/Sessions.ts). */
    const live = (hashes: ReadonlyArray<string>) =>
      Effect.map(
        sql<{ key_hash: string }>`SELECT key_hash FROM api_keys
            WHERE key_hash = ANY(${hashes as Array<string>}::text[]) AND revoked_at IS NULL
          UNION ALL
          SELECT token_hash FROM console_sessions
            WHERE token_hash = ANY(${hashes as Array<string>}::text[]) AND revoked_at IS NULL AND expires_at > now()`,
        (rows) => new Set(rows.map((r) => r.key_hash))
      )

    return { holders, live } as const
  })
}) {}
