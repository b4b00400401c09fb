import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { iso, sqlArray } from "../Database/SqlArrays.js"

export const Account = Schema.Struct({ id: Ids.UserId, handle: Schema.String, owner_id: Schema.NullOr(Ids.UserId) })
export type Account = typeof Account.Type

/** Presence rows, a batch of agents at a time; every time is the application Clock's, passed in. */
export class PresenceRepo extends Effect.Service<PresenceRepo>()("Realtime/PresenceRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const userType = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ user_type: Ids.UserType }),
      execute: (id) => sql`SELECT user_type FROM users WHERE id = ${id}`
    })

    /** The agents among `ids` that this call turned connected (they were offline or had no row). */
    const markConnected = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Schema.Array(Ids.UserId), at: Schema.Number }),
      Result: Account,
      execute: ({ at, ids }) =>
        sql`WITH changed AS (
              INSERT INTO presence (user_id, state, changed_at)
              SELECT id, 'connected', ${iso(at)}::timestamptz FROM users
              WHERE id = ANY(${sqlArray(ids)}::uuid[]) AND user_type = 'agent'
              ON CONFLICT (user_id) DO UPDATE SET state = 'connected', changed_at = EXCLUDED.changed_at
              WHERE presence.state = 'offline'
              RETURNING user_id)
            SELECT u.id, u.handle, u.owner_id FROM changed c JOIN users u ON u.id = c.user_id`
    })

    /** Those turned offline: connected, and no heartbeat newer than `cutoff` reached the database (any node). */
    const markOffline = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Schema.Array(Ids.UserId), at: Schema.Number, cutoff: Schema.Number }),
      Result: Account,
      execute: ({ at, cutoff, ids }) =>
        sql`UPDATE presence p SET state = 'offline', changed_at = ${iso(at)}::timestamptz
            FROM users u
            WHERE p.user_id = ANY(${sqlArray(ids)}::uuid[]) AND u.id = p.user_id AND p.state = 'connected'
              AND (u.last_seen_at IS NULL OR u.last_seen_at <= ${iso(cutoff)}::timestamptz)
            RETURNING u.id, u.handle, u.owner_id`
    })

    const current = SqlSchema.findAll({
      Request: Schema.Array(Ids.UserId),
      Result: Schema.Struct({
        user_id: Ids.UserId,
        state: Schema.Literal("connected", "offline"),
        last_seen_at: Schema.NullOr(Schema.DateFromSelf)
      }),
      execute: (ids) =>
        sql`SELECT p.user_id, p.state, u.last_seen_at FROM presence p JOIN users u ON u.id = p.user_id
            WHERE p.user_id = ANY(${sqlArray(ids)}::uuid[])`
    })

    /** Agents left connected (by this or a stopped node) whose last sign of life is after `since`. */
    const connectedSince = SqlSchema.findAll({
      Request: Schema.Number,
      Result: Schema.Struct({ user_id: Ids.UserId, seen: Schema.DateFromSelf }),
      execute: (since) =>
        sql`SELECT p.user_id, greatest(p.changed_at, u.last_seen_at) AS seen
          FROM presence p JOIN users u ON u.id = p.user_id
          WHERE p.state = 'connected' AND greatest(p.changed_at, u.last_seen_at) > ${iso(since)}::timestamptz`
    })

    return { userType, markConnected, markOffline, current, connectedSince } as const
  })
}) {}
