import { SqlClient, SqlSchema } from "@effect/sql"
import { Identity, Ids, Users } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { sqlArray } from "../Database/SqlArrays.js"
import { likeEscape } from "../Database/SqlHelpers.js"

export const UserRow = Schema.Struct({
  id: Ids.UserId,
  handle: Ids.Handle,
  user_type: Ids.UserType,
  display_name: Schema.String,
  bio: Schema.String,
  profile_photo_url: Schema.NullOr(Schema.String),
  webhook_url: Schema.NullOr(Schema.String),
  identity: Identity.Identity,
  owner_id: Schema.NullOr(Ids.UserId),
  last_seen_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf,
  svc_gems: Schema.NumberFromString,
  gems_escrow: Schema.NumberFromString,
  verified: Schema.Boolean
})
export type UserRow = typeof UserRow.Type

/** The wire form of `User`, built directly: `/me` is the hottest read and skips schema encoding. */
export const toUserJson = (row: UserRow, lastSeen?: number): typeof Users.User.Encoded => {
  const seen = Math.max(row.last_seen_at?.getTime() ?? 0, lastSeen ?? 0)
  return {
    id: row.id,
    handle: row.handle,
    display_name: row.display_name,
    bio: row.bio,
    profile_photo_url: row.profile_photo_url,
    identity: row.identity,
    user_type: row.user_type,
    owner_id: row.owner_id,
    svc_gems: row.svc_gems,
    gems_escrow: row.gems_escrow,
    verified: row.verified,
    last_heartbeat_at: seen > 0 ? new Date(seen).toISOString() : null,
    created_at: row.created_at.toISOString()
  }
}

/** Rows were decoded by SqlSchema already: the constructor skips a second validation. */
export const toUser = (row: UserRow, lastSeen?: number): Users.User =>
  new Users.User(toUserJson(row, lastSeen) as any, true)

/** The wire form of `Profile`, built directly like toUserJson. */
export const toProfileJson = (row: UserRow): typeof Users.Profile.Encoded => ({
  id: row.id,
  handle: row.handle,
  name: row.display_name,
  display_name: row.display_name,
  bio: row.bio,
  webhook_url: row.webhook_url,
  profile_photo_url: row.profile_photo_url,
  identity: row.identity,
  user_type: row.user_type,
  owner_id: row.owner_id,
  verified: row.verified
})

/** Like toUser: the same values (no field of Profile is transformed), already validated. */
export const toProfile = (row: UserRow): Users.Profile => new Users.Profile(toProfileJson(row) as any, true)

export type ProfileChanges = Partial<Pick<UserRow, "display_name" | "bio" | "profile_photo_url" | "webhook_url">> & {
  readonly identitySet: Readonly<Record<string, string>>
  readonly identityRemove: ReadonlyArray<string>
}

export class ProfilesRepo extends Effect.Service<ProfilesRepo>()("Profiles/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // an agent's gems_escrow shows its pending Gems, a human's the bounties it holds in escrow
    const columns = sql`u.id, u.handle, u.user_type, u.display_name, u.bio, u.profile_photo_url, u.webhook_url,
      u.identity, u.owner_id, u.last_seen_at, u.created_at,
      coalesce((SELECT sum(balance) FROM gem_accounts g WHERE g.user_id = u.id AND g.kind = 'available'), 0)::text
        AS svc_gems,
      coalesce((SELECT sum(balance) FROM gem_accounts g WHERE g.user_id = u.id AND g.kind <> 'available'), 0)::text
        AS gems_escrow,
      EXISTS (SELECT 1 FROM premium_features pf WHERE pf.user_id = u.id AND pf.feature_id = 'verified_badge'
        AND (pf.expires_at IS NULL OR pf.expires_at > now())) AS verified`

    const findBy = (column: "id" | "handle") =>
      SqlSchema.findOne({
        Request: Schema.String,
        Result: UserRow,
        execute: (value) => sql`SELECT ${columns} FROM users u WHERE u.${sql(column)} = ${value}`
      })

    const update = (id: Ids.UserId, { identityRemove, identitySet, ...fields }: ProfileChanges, now: number) => {
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
      // identity merges key by key in SQL, so two concurrent patches of different keys both land; the row comes
      // back from the same statement (no second read)
      return SqlSchema.findOne({
        Request: Schema.String,
        Result: UserRow,
        execute: (id) =>
          sql`UPDATE users u SET ${sql.update({ ...set, updated_at: new Date(now) })},
            identity = (identity || ${JSON.stringify(identitySet)}::jsonb) - ${sqlArray(identityRemove)}::text[]
          WHERE u.id = ${id} RETURNING ${columns}`
      })(id)
    }

    const search = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({
        id: Ids.UserId,
        display_name: Schema.String,
        handle: Ids.Handle,
        user_type: Ids.UserType
      }),
      execute: (q) => {
        const pattern = `%${likeEscape(q.toLowerCase())}%`
        const prefix = `${likeEscape(q.toLowerCase())}%`
        return sql`SELECT id, display_name, handle, user_type FROM users
          WHERE handle LIKE ${pattern} OR lower(display_name) LIKE ${pattern}
          ORDER BY (handle = ${q.toLowerCase()}) DESC, (handle LIKE ${prefix}) DESC, handle
          LIMIT 20`
      }
    })

    return { findById: findBy("id"), findByHandle: findBy("handle"), update, search } as const
  })
}) {}
