import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Ids, Social } from "@shoal/domain"
import { Effect, flow, Schema } from "effect"
import { sqlArray } from "../Database/SqlArrays.js"
import { IsoFromDate } from "../Projects/Times.js"
import type { PageStart } from "./Cursor.js"

export const PostRow = Schema.Struct({
  id: Ids.PostId,
  author_id: Ids.UserId,
  a_handle: Ids.Handle,
  a_name: Schema.String,
  content: Schema.String,
  media: Schema.Array(Schema.String),
  project_id: Schema.NullOr(Ids.ProjectId),
  visibility: Social.PostVisibility,
  created_at: IsoFromDate,
  comment_count: Schema.Number,
  score: Schema.Number,
  my_vote: Schema.Number
})
export type PostRow = typeof PostRow.Type

const CommentRow = Schema.Struct({
  id: Schema.String,
  post_id: Ids.PostId,
  author_handle: Schema.String,
  content: Schema.String,
  created_at: IsoFromDate
})

// built once: a decoder compiled per call cost more than the feed's query
const decodePosts = Schema.decodeUnknown(Schema.Array(PostRow))

export interface NewPostValues {
  readonly content: string
  readonly media: ReadonlyArray<string>
  readonly projectId: Ids.ProjectId | null
  readonly visibility: Social.PostVisibility
}

export class PostsRepo extends Effect.Service<PostsRepo>()("Social/PostsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * May `viewer` see post p (joined as `p`)? Its author always; otherwise a private project's update needs a
     * participant (a member, or the human owning the project's owner), and the post's own visibility must allow it:
     * public, or followers when the viewer follows the author. Kept in SQL so every list filters in one statement.
     */
    const visibleTo = (viewer: Statement.Fragment) =>
      sql`(p.author_id = ${viewer} OR (
        (p.project_id IS NULL
          OR EXISTS (SELECT 1 FROM projects pr WHERE pr.id = p.project_id AND (pr.visibility = 'public'
            OR EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = pr.id AND pm.user_id = ${viewer})
            OR EXISTS (SELECT 1 FROM users po WHERE po.id = pr.owner_id AND po.owner_id = ${viewer}))))
        AND (p.visibility = 'public' OR (p.visibility = 'followers'
          AND EXISTS (SELECT 1 FROM follows vf WHERE vf.follower_id = ${viewer} AND vf.followee_id = p.author_id)))
      ))`

    const columns = (viewer: string) =>
      sql`p.id, p.author_id, a.handle AS a_handle, a.display_name AS a_name, p.content, p.media, p.project_id,
        p.visibility, p.created_at, p.comment_count, p.score,
        coalesce((SELECT v.vote FROM post_votes v WHERE v.post_id = p.id AND v.user_id = ${viewer}), 0)::int AS my_vote`

    const startAt = (s: PageStart) =>
      s.after === undefined
        ? sql`TRUE`
        : sql`(p.created_at, p.id) < (${s.after.createdAt}::timestamptz, ${s.after.id}::uuid)`

    const page = (s: PageStart) =>
      sql`ORDER BY p.created_at DESC, p.id DESC LIMIT ${s.limit} ${s.offset > 0 ? sql`OFFSET ${s.offset}` : sql``}`

    const rows = (statement: Statement.Statement<unknown>) => Effect.flatMap(statement, decodePosts).pipe(Effect.orDie)

    /** Serializes the posts of one author (the rolling limit is read and then written in one transaction). */
    const lockAuthor = (author: Ids.UserId) =>
      sql`SELECT id FROM users WHERE id = ${author} FOR UPDATE`.pipe(Effect.asVoid, Effect.orDie)

    /** The `n`th newest post of `author` since `since`, if there are that many: when it leaves, one more is allowed. */
    const nthSince = (author: Ids.UserId, since: Date, n: number) =>
      Effect.map(
        sql<{ created_at: Date | string }>`SELECT created_at FROM posts WHERE author_id = ${author}
          AND created_at > ${since} ORDER BY created_at DESC OFFSET ${n - 1} LIMIT 1`,
        (r) => r.length === 0 ? undefined : new Date(r[0]!.created_at)
      ).pipe(Effect.orDie)

    const insert = (author: Ids.UserId, v: NewPostValues, now: Date) =>
      Effect.map(
        sql<{ id: Ids.PostId }>`INSERT INTO posts (author_id, content, media, project_id, visibility, created_at)
          VALUES (${author}, ${v.content}, ${JSON.stringify(v.media)}::jsonb, ${v.projectId}, ${v.visibility}, ${now})
          RETURNING id`,
        (r) => r[0]!.id
      ).pipe(Effect.orDie)

    /** The post, if `viewer` may see it. */
    const find = (id: Ids.PostId, viewer: Ids.UserId) =>
      Effect.map(
        rows(sql`SELECT ${columns(viewer)} FROM posts p JOIN users a ON a.id = p.author_id
          WHERE p.id = ${id} AND ${visibleTo(sql`${viewer}::uuid`)}`),
        (r) => r[0]
      )

    /**
     * The feed: posts of followed accounts, the viewer's own, and updates of projects it takes part in. One walk of
     * posts_created_idx newest first, each post tested against the followed set and the viewer's projects (arrays
     * computed once); author and vote are joined to the page only. The visibility test is `visibleTo` specialised
     * to these sources as plain column tests: with `visibleTo`'s subqueries the planner sorted every followed post.
     */
    const feed = (viewer: Ids.UserId, s: PageStart) =>
      rows(sql`SELECT ${columns(viewer)} FROM (
          SELECT p.* FROM posts p, (SELECT
              ARRAY(SELECT followee_id FROM follows WHERE follower_id = ${viewer}) AS followed,
              ARRAY(SELECT project_id FROM project_members WHERE user_id = ${viewer}
                UNION SELECT pr.id FROM projects pr JOIN users o ON o.id = pr.owner_id WHERE o.owner_id = ${viewer})
                AS mine) s
          WHERE ${startAt(s)} AND (p.author_id = ${viewer}
            OR (array_position(s.followed, p.author_id) IS NOT NULL AND p.visibility <> 'private'
              AND (p.project_id IS NULL OR p.project_id = ANY (s.mine)
                OR EXISTS (SELECT 1 FROM projects pr WHERE pr.id = p.project_id AND pr.visibility = 'public')))
            OR (p.project_id = ANY (s.mine)
              AND (p.visibility = 'public' OR (p.visibility = 'followers' AND array_position(s.followed, p.author_id) IS NOT NULL))))
          ${page(s)}
        ) p JOIN users a ON a.id = p.author_id
        ORDER BY p.created_at DESC, p.id DESC`)

    const byAuthor = (author: Ids.UserId, viewer: Ids.UserId, s: PageStart) =>
      rows(sql`SELECT ${columns(viewer)} FROM posts p JOIN users a ON a.id = p.author_id
        WHERE p.author_id = ${author} AND ${startAt(s)} AND ${visibleTo(sql`${viewer}::uuid`)}
        ${page(s)}`)

    const comments = flow(
      SqlSchema.findAll({
        Request: Ids.PostId,
        Result: CommentRow,
        execute: (id) =>
          sql`SELECT c.id, c.post_id, u.handle AS author_handle, c.content, c.created_at
            FROM post_comments c JOIN users u ON u.id = c.author_id
            WHERE c.post_id = ${id} ORDER BY c.created_at, c.id`
      }),
      Effect.orDie
    )

    const insertComment = (post: Ids.PostId, author: Ids.UserId, content: string, now: Date) =>
      Effect.gen(function*() {
        const r = yield* sql<{ id: string }>`INSERT INTO post_comments (post_id, author_id, content, created_at)
          VALUES (${post}, ${author}, ${content}, ${now}) RETURNING id`
        yield* sql`UPDATE posts SET comment_count = comment_count + 1 WHERE id = ${post}`
        return r[0]!.id
      }).pipe(Effect.orDie)

    /** Sets the caller's vote; the score moves by the difference. `changed` is false for the same vote again. */
    const vote = (post: Ids.PostId, user: Ids.UserId, value: 1 | -1, now: Date) =>
      Effect.gen(function*() {
        const before = yield* sql<{ vote: number }>`SELECT vote FROM post_votes
          WHERE post_id = ${post} AND user_id = ${user} FOR UPDATE`
        const old = before[0]?.vote ?? 0
        if (old !== value) {
          yield* sql`INSERT INTO post_votes (post_id, user_id, vote, created_at) VALUES (${post}, ${user}, ${value}, ${now})
            ON CONFLICT (post_id, user_id) DO UPDATE SET vote = EXCLUDED.vote, created_at = EXCLUDED.created_at`
          yield* sql`UPDATE posts SET score = score + ${value - old} WHERE id = ${post}`
        }
        const score = yield* sql<{ score: number }>`SELECT score FROM posts WHERE id = ${post}`
        return { changed: old !== value, score: score[0]!.score }
      }).pipe(Effect.orDie)

    /**
     * Of the accounts with these handles, other than the post's author, the ones that may see the post and were not
     * told of a mention on it yet; marks them told and returns them.
     */
    const newMentions = (post: Ids.PostId, handles: ReadonlyArray<string>) =>
      handles.length === 0 ? Effect.succeed([] as ReadonlyArray<Ids.UserId>) : Effect.map(
        sql<{ user_id: Ids.UserId }>`INSERT INTO post_mentions (post_id, user_id)
          SELECT p.id, u.id FROM posts p JOIN users u ON u.handle = ANY (${sqlArray(handles)}::text[])
          WHERE p.id = ${post} AND u.id <> p.author_id AND ${visibleTo(sql`u.id`)}
          ON CONFLICT DO NOTHING RETURNING user_id`,
        (r) => r.map((x) => x.user_id)
      ).pipe(Effect.orDie)

    return { lockAuthor, nthSince, insert, find, feed, byAuthor, comments, insertComment, vote, newMentions } as const
  })
}) {}
