import { SqlClient } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"
import type { PageStart, Position } from "./Cursor.js"

const FollowUserRow = Schema.Struct({
  id: Ids.UserId,
  handle: Schema.String,
  display_name: Schema.String,
  user_type: Ids.UserType,
  followed_at: IsoFromDate,
  total: Schema.Number
})

const decodeRows = Schema.decodeUnknown(Schema.Array(FollowUserRow))

type Which = "followers" | "following"
// a list's [the listed users' column, the given user's column]
const sides = { followers: ["follower_id", "followee_id"], following: ["followee_id", "follower_id"] } as const

export class FollowsRepo extends Effect.Service<FollowsRepo>()("Social/FollowsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Follows unless already following; when it was there, `created` is false and the first time is kept. */
    const follow = (follower: Ids.UserId, followee: Ids.UserId, now: Date) =>
      Effect.gen(function*() {
        const inserted = yield* sql<
          { created_at: Date | string }
        >`INSERT INTO follows (follower_id, followee_id, created_at)
          VALUES (${follower}, ${followee}, ${now}) ON CONFLICT DO NOTHING RETURNING created_at`
        if (inserted.length > 0) return { created: true, createdAt: new Date(inserted[0]!.created_at).toISOString() }
        const existing = yield* sql<{ created_at: Date | string }>`SELECT created_at FROM follows
          WHERE follower_id = ${follower} AND followee_id = ${followee}`
        return { created: false, createdAt: new Date(existing[0]!.created_at).toISOString() }
      }).pipe(Effect.orDie)

    const unfollow = (follower: Ids.UserId, followee: Ids.UserId) =>
      Effect.map(
        sql<{ n: number }>`WITH gone AS (DELETE FROM follows WHERE follower_id = ${follower}
          AND followee_id = ${followee} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        (r) => (r[0]?.n ?? 0) > 0
      ).pipe(Effect.orDie)

    // newest first; a cursor names the last (followed_at, user id) of the previous page (Social/Cursor.ts)
    const past = (after: Position | undefined) =>
      after === undefined ? sql`` : sql`AND (f.created_at, u.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`

    /** The users on the other side of `which`: who follows `user`, or whom `user` follows. */
    const list = (which: Which, user: Ids.UserId, { after, limit, offset }: PageStart) => {
      const [them, of] = sides[which]
      return Effect.flatMap(
        sql`SELECT u.id, u.handle, u.display_name, u.user_type, f.created_at AS followed_at,
            (count(*) OVER ())::int AS total
          FROM follows f JOIN users u ON u.id = f.${sql(them)} WHERE f.${sql(of)} = ${user} ${past(after)}
          ORDER BY f.created_at DESC, u.id DESC LIMIT ${limit} OFFSET ${offset}`,
        decodeRows
      ).pipe(Effect.orDie)
    }

    const count = (which: Which, user: Ids.UserId) =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM follows WHERE ${sql(sides[which][1])} = ${user}`,
        (r) => r[0]?.n ?? 0
      ).pipe(Effect.orDie)

    return { follow, unfollow, list, count } as const
  })
}) {}
