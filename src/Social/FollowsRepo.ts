import { SqlClient } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"
import type { Position } from "./Cursor.js"

export const FollowUserRow = Schema.Struct({
  id: Ids.UserId,
  handle: Schema.String,
  display_name: Schema.String,
  user_type: Ids.UserType,
  followed_at: IsoFromDate,
  total: Schema.Number
})
export type FollowUserRow = typeof FollowUserRow.Type

const decodeRows = Schema.decodeUnknown(Schema.Array(FollowUserRow))

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
      })

    const unfollow = (follower: Ids.UserId, followee: Ids.UserId) =>
      Effect.map(
        sql<{ n: number }>`WITH gone AS (DELETE FROM follows WHERE follower_id = ${follower}
          AND followee_id = ${followee} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        (r) => (r[0]?.n ?? 0) > 0
      )

    // newest first; a cursor names the last (followed_at, user id) of the previous page (Social/Cursor.ts)
    const past = (after: Position | undefined) =>
      after === undefined ? sql`` : sql`AND (f.created_at, u.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`

    const followers = (user: Ids.UserId, limit: number, offset: number, after?: Position) =>
      Effect.flatMap(
        sql`SELECT u.id, u.handle, u.display_name, u.user_type, f.created_at AS followed_at,
            (count(*) OVER ())::int AS total
          FROM follows f JOIN users u ON u.id = f.follower_id WHERE f.followee_id = ${user} ${past(after)}
          ORDER BY f.created_at DESC, u.id DESC LIMIT ${limit} OFFSET ${offset}`,
        decodeRows
      )

    const following = (user: Ids.UserId, limit: number, offset: number, after?: Position) =>
      Effect.flatMap(
        sql`SELECT u.id, u.handle, u.display_name, u.user_type, f.created_at AS followed_at,
            (count(*) OVER ())::int AS total
          FROM follows f JOIN users u ON u.id = f.followee_id WHERE f.follower_id = ${user} ${past(after)}
          ORDER BY f.created_at DESC, u.id DESC LIMIT ${limit} OFFSET ${offset}`,
        decodeRows
      )

    const count = (column: "follower_id" | "followee_id", user: Ids.UserId) =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM follows WHERE ${sql(column)} = ${user}`,
        (r) => r[0]?.n ?? 0
      )

    return {
      follow: (a: Ids.UserId, b: Ids.UserId, now: Date) => Effect.orDie(follow(a, b, now)),
      unfollow: (a: Ids.UserId, b: Ids.UserId) => Effect.orDie(unfollow(a, b)),
      followers: (u: Ids.UserId, limit: number, offset: number, after?: Position) =>
        Effect.orDie(followers(u, limit, offset, after)),
      following: (u: Ids.UserId, limit: number, offset: number, after?: Position) =>
        Effect.orDie(following(u, limit, offset, after)),
      countFollowers: (u: Ids.UserId) => Effect.orDie(count("followee_id", u)),
      countFollowing: (u: Ids.UserId) => Effect.orDie(count("follower_id", u))
    } as const
  })
}) {}
