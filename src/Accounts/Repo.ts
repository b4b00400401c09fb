import { SqlClient, SqlSchema } from "@effect/sql"
import type { Auth } from "@shoal/domain"
import { Accounts, Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { iso } from "../Database/SqlArrays.js"
import { IsoFromDate } from "../Projects/Times.js"

export const PrincipalRow = Schema.Struct({
  id: Ids.UserId,
  handle: Ids.Handle,
  user_type: Ids.UserType,
  owner_id: Schema.NullOr(Ids.UserId)
})

/** The account a row names, acting with the key `keyHash` ("": none presented, as for the offline CLI). */
export const toPrincipal = (row: typeof PrincipalRow.Type, keyHash = ""): Auth.Principal => ({
  id: row.id,
  handle: row.handle,
  userType: row.user_type,
  ownerId: row.owner_id,
  keyHash
})

const KeyRow = Schema.Struct({
  ...Accounts.KeyInfo.fields,
  created_at: IsoFromDate,
  revoked_at: Schema.NullOr(IsoFromDate),
  last_used_at: Schema.NullOr(IsoFromDate)
})

export class AccountsRepo extends Effect.Service<AccountsRepo>()("Accounts/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const byHandle = SqlSchema.findOne({
      Request: Schema.String,
      Result: PrincipalRow,
      execute: (handle) => sql`SELECT id, handle, user_type, owner_id FROM users WHERE handle = ${handle}`
    })

    /** Inserts the user unless the handle is taken; `None` means taken. */
    const insertUser = SqlSchema.findOne({
      Request: Schema.Struct({
        handle: Schema.String,
        user_type: Ids.UserType,
        display_name: Schema.String,
        bio: Schema.String,
        owner_id: Schema.NullOr(Schema.String)
      }),
      Result: PrincipalRow,
      execute: (u) =>
        sql`INSERT INTO users ${sql.insert(u)} ON CONFLICT (handle) DO NOTHING
            RETURNING id, handle, user_type, owner_id`
    })

    /** The hashes of the user's live keys, sorted. */
    const liveKeyHashes = (userId: Ids.UserId) =>
      Effect.map(
        sql<{ key_hash: string }>`SELECT key_hash FROM api_keys WHERE user_id = ${userId} AND revoked_at IS NULL
                                  ORDER BY key_hash`,
        (rows) => rows.map((r) => r.key_hash)
      )

    /** True when one of the user's keys was revoked (by a rotation) after `since`. */
    const rotatedSince = (userId: Ids.UserId, since: number) =>
      Effect.map(
        sql<{ recent: boolean }>`SELECT EXISTS (SELECT 1 FROM api_keys WHERE user_id = ${userId}
                                   AND revoked_at > ${iso(since)}::timestamptz) AS recent`,
        (rows) => rows[0]?.recent === true
      )

    /**
     * Locks the user's row until the transaction ends: rotations of one account's key run one after the other, on
     * every node of a shared PostgreSQL, and each sees the keys the previous one left.
     */
    const lockUser = (userId: Ids.UserId) => Effect.asVoid(sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`)

    /**
     * Revokes every live key of the user and stores the new one's hash and prefix; returns the revoked hashes. The
     * new key keeps the name of the key it replaces, so a key named "production" stays named through rotations.
     */
    const replaceKey = (userId: Ids.UserId, hash: string, now: number, prefix: string | null = null) =>
      Effect.gen(function*() {
        const at = iso(now)
        const revoked = yield* sql<{ key_hash: string; name: string | null }>`
          UPDATE api_keys SET revoked_at = ${at}::timestamptz WHERE user_id = ${userId} AND revoked_at IS NULL
          RETURNING key_hash, name`
        const name = revoked.find((r) => r.name !== null)?.name ?? null
        yield* sql`INSERT INTO api_keys (key_hash, user_id, created_at, prefix, name)
                   VALUES (${hash}, ${userId}, ${at}::timestamptz, ${prefix}, ${name})`
        return revoked.map((r) => r.key_hash)
      })

    /** The user's keys as its owner sees them: the live one first, then the revoked, newest first. */
    const keysOf = SqlSchema.findAll({
      Request: Ids.UserId,
      Result: KeyRow,
      execute: (userId) =>
        sql`SELECT k.id, k.name, k.prefix, k.created_at, k.revoked_at,
                   CASE WHEN k.revoked_at IS NULL THEN u.last_seen_at END AS last_used_at
            FROM api_keys k JOIN users u ON u.id = k.user_id
            WHERE k.user_id = ${userId}
            ORDER BY k.revoked_at IS NULL DESC, k.created_at DESC LIMIT 50`
    })

    /** Names (or unnames) one of the user's keys; `None` when the id is not one of its keys. */
    const renameKey = SqlSchema.findOne({
      Request: Schema.Struct({ user_id: Ids.UserId, id: Schema.String, name: Schema.NullOr(Schema.String) }),
      Result: KeyRow,
      execute: (r) =>
        sql`UPDATE api_keys k SET name = ${r.name} FROM users u
            WHERE u.id = k.user_id AND k.user_id = ${r.user_id} AND k.id = ${r.id}
            RETURNING k.id, k.name, k.prefix, k.created_at, k.revoked_at,
                      CASE WHEN k.revoked_at IS NULL THEN u.last_seen_at END AS last_used_at`
    })

    return { byHandle, insertUser, liveKeyHashes, lockUser, replaceKey, keysOf, renameKey, rotatedSince } as const
  })
}) {}
