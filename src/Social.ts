import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { Errors, Social as Api, Work } from "@shoal/domain"
import { DateTime, Effect } from "effect"
import { PublicUrl } from "./Identity/PublicUrl.js"
import { PeopleRepo } from "./Projects/PeopleRepo.js"
import * as ProjectPolicy from "./Projects/Policy.js"
import { ProjectsRepo } from "./Projects/Repo.js"
import { Outbox } from "./Realtime/Outbox.js"
import { pageOf, pageStart } from "./Social/Cursor.js"
import { FollowsRepo } from "./Social/FollowsRepo.js"
import { mentionedHandles } from "./Social/Mentions.js"
import { type PostRow, PostsRepo } from "./Social/PostsRepo.js"

/** CONTRACT "Post limit": 100 posts per rolling 24 hours per account; comments do not count. */
export const POST_LIMIT = 100
export const POST_WINDOW_MS = 24 * 60 * 60_000

/** Posts, project updates, the feed, follows, comments and votes. */
export class Social extends Effect.Service<Social>()("Social", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const posts = yield* PostsRepo
    const follows = yield* FollowsRepo
    const people = yield* PeopleRepo
    const projects = yield* ProjectsRepo
    const outbox = yield* Outbox
    const publicUrl = yield* Effect.orDie(PublicUrl)

    const toPost = (row: PostRow): Api.Post =>
      new Api.Post({
        id: row.id,
        author: new Work.Person({ id: row.author_id, handle: row.a_handle, display_name: row.a_name }, true),
        author_handle: row.a_handle,
        content: row.content,
        media: row.media,
        project_id: row.project_id,
        visibility: row.visibility,
        created_at: row.created_at,
        permalink: `${publicUrl}/posts/${row.id}`,
        comment_count: row.comment_count,
        score: row.score,
        my_vote: row.my_vote > 0 ? 1 : row.my_vote < 0 ? -1 : 0
      }, true)

    const toPage = (rows: ReadonlyArray<PostRow>, limit: number) => {
      const { next_cursor, page } = pageOf(rows, limit)
      return { posts: page.map(toPost), next_cursor }
    }

    /** The user named by a handle (`me`: the caller); unknown is a 404. */
    const userByHandle = (caller: Auth.Principal, handle: string) =>
      handle === "me" ? Effect.succeed({ id: caller.id, handle: caller.handle }) : people.named(handle)

    /** `mention.created` to each account named in `text` that may see the post, once per post, never its author. */
    const mention = (caller: Auth.Principal, postId: Ids.PostId, text: string) =>
      Effect.gen(function*() {
        const handles = mentionedHandles(text).filter((h) => h !== caller.handle)
        const told = yield* posts.newMentions(postId, handles)
        if (told.length === 0) return
        yield* outbox.emit(told, "mention.created", { post_id: postId, author_handle: caller.handle, content: text })
      })

    /** The visible post, or a 404. */
    const visiblePost = (caller: Auth.Principal, id: Ids.PostId) =>
      Effect.flatMap(
        posts.find(id, caller.id),
        (row) => row === undefined ? new Errors.NotFound({ message: `no post with id ${id}` }) : Effect.succeed(row)
      )

    const createPost = Effect.fn("Social.createPost")(function*(caller: Auth.Principal, input: Api.NewPost) {
      const projectId = input.project_id ?? null
      if (projectId !== null) {
        const project = yield* projects.visible(projectId, caller.id)
        yield* ProjectPolicy.requireParticipant(project, "post its updates")
      }
      const at = yield* DateTime.nowAsDate
      const id = yield* Effect.gen(function*() {
        yield* posts.lockAuthor(caller.id)
        const nth = yield* posts.nthSince(caller.id, new Date(at.getTime() - POST_WINDOW_MS), POST_LIMIT)
        if (nth !== undefined) {
          // the post that makes the limit leaves the window at nth + 24 h: then one more is allowed
          const retryAfter = Math.max(1, Math.ceil((nth.getTime() + POST_WINDOW_MS - at.getTime()) / 1000))
          return yield* new Errors.RateLimited({
            message: `at most ${POST_LIMIT} posts per 24 hours; retry after ${retryAfter} s`,
            details: { retry_after: retryAfter, limit: POST_LIMIT }
          })
        }
        const id = yield* posts.insert(caller.id, {
          content: input.content,
          media: input.media ?? [],
          projectId,
          visibility: input.visibility ?? "public"
        }, at)
        yield* mention(caller, id, input.content)
        return id
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      return toPost(yield* visiblePost(caller, id))
    })

    const getPost = Effect.fn("Social.getPost")(function*(caller: Auth.Principal, id: Ids.PostId) {
      const row = yield* visiblePost(caller, id)
      const comments = yield* posts.comments(id)
      return { post: toPost(row), comments: comments.map((c) => new Api.PostComment(c, true)) }
    })

    const feed = Effect.fn("Social.feed")(function*(caller: Auth.Principal, q: Api.PageQuery) {
      const { limit, start } = yield* pageStart(q, 20)
      return toPage(yield* posts.feed(caller.id, start), limit)
    })

    const userPosts = Effect.fn("Social.userPosts")(
      function*(caller: Auth.Principal, handle: string, q: Api.PageQuery) {
        const user = yield* userByHandle(caller, handle)
        const { limit, start } = yield* pageStart(q, 20)
        return toPage(yield* posts.byAuthor(user.id, caller.id, start), limit)
      }
    )

    const follow = Effect.fn("Social.follow")(function*(caller: Auth.Principal, handle: string) {
      const user = yield* userByHandle(caller, handle)
      if (user.id === caller.id) return yield* new Errors.Unprocessable({ message: "an account cannot follow itself" })
      const at = yield* DateTime.nowAsDate
      const result = yield* follows.follow(caller.id, user.id, at).pipe(
        Effect.tap((r) =>
          r.created ? outbox.emit([user.id], "follower.new", { follower_handle: caller.handle }) : Effect.void
        ),
        sql.withTransaction,
        Effect.orDie
      )
      return {
        follow: new Api.Follow({ follower_handle: caller.handle, handle: user.handle, created_at: result.createdAt }),
        created: result.created
      }
    })

    const unfollow = Effect.fn("Social.unfollow")(function*(caller: Auth.Principal, handle: string) {
      const user = yield* userByHandle(caller, handle)
      return { handle: user.handle, removed: yield* follows.unfollow(caller.id, user.id) }
    })

    const followList = (which: "followers" | "following") =>
      Effect.fn(`Social.${which}`)(
        function*(caller: Auth.Principal, handle: string, q: Api.FollowListQuery) {
          const user = yield* userByHandle(caller, handle)
          const { limit, start } = yield* pageStart(q, 100)
          const rows = yield* follows.list(which, user.id, start)
          // the window count covers what is past the cursor only: the whole list's total is counted on its own then
          const total = rows.length > 0 && start.after === undefined
            ? rows[0]!.total
            : yield* follows.count(which, user.id)
          const { next_cursor, page } = pageOf(rows.map((r) => ({ ...r, created_at: r.followed_at })), limit)
          return {
            handle: user.handle,
            users: page.map(({ created_at: _, total: __, ...u }) => new Api.FollowUser(u, true)),
            total,
            next_cursor
          }
        }
      )

    const comment = Effect.fn("Social.comment")(
      function*(caller: Auth.Principal, input: typeof Api.NewPostComment.Type) {
        const at = yield* DateTime.nowAsDate
        const id = yield* Effect.gen(function*() {
          yield* visiblePost(caller, input.post_id)
          const id = yield* posts.insertComment(input.post_id, caller.id, input.content, at)
          yield* mention(caller, input.post_id, input.content)
          return id
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
        return new Api.PostComment({
          id,
          post_id: input.post_id,
          author_handle: caller.handle,
          content: input.content,
          created_at: at.toISOString()
        }, true)
      }
    )

    const vote = Effect.fn("Social.vote")(function*(caller: Auth.Principal, input: typeof Api.VoteInput.Type) {
      const at = yield* DateTime.nowAsDate
      return yield* Effect.gen(function*() {
        yield* visiblePost(caller, input.post_id)
        const { changed, score } = yield* posts.vote(input.post_id, caller.id, input.vote, at)
        return new Api.VoteResponse({
          status: "success",
          vote: { post_id: input.post_id, vote: input.vote },
          score,
          changed
        }, true)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    })

    return {
      createPost,
      getPost,
      feed,
      userPosts,
      follow,
      unfollow,
      followers: followList("followers"),
      following: followList("following"),
      comment,
      vote
    } as const
  }),
  dependencies: [PostsRepo.Default, FollowsRepo.Default, PeopleRepo.Default, ProjectsRepo.Default]
}) {}
