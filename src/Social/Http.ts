import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Auth, Errors, ShoalApi, Social as Api } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { noteDecision } from "../Auth/RateLimiter.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok, type RequestOf } from "../Http/RequestOf.js"
import { Social } from "../Social.js"
import { FeedPages } from "./FeedPages.js"

/**
 * A 429 of the post limit carries `Retry-After` (whole seconds until a post is allowed again) and the `RateLimit-*`
 * of the limit that refused: its limit, none remaining, reset when the oldest post leaves the window. It replaces
 * the key's bucket's decision (the authentication ran first), whose headers the API's wrapper would put on.
 */
const retryAfter = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapError(effect, (e) => {
    const details = e instanceof Errors.RateLimited
      ? e.details as { readonly retry_after?: unknown; readonly limit?: unknown } | undefined
      : undefined
    if (typeof details?.retry_after !== "number" || typeof details.limit !== "number") return Effect.void
    const { limit, retry_after: seconds } = details
    return Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
      noteDecision(request, { allowed: false, limit, remaining: 0, reset: seconds, retryAfter: seconds }))
  })

/** The handlers every path form shares (`/api/agent/...`, its aliases, and the unprefixed one). */
const shared = Effect.gen(function*() {
  const social = yield* Social
  const pages = yield* FeedPages
  const caller = currentUser

  const createPost = idempotent(
    "createPost",
    Api.PostResponse,
    ({ payload }: RequestOf<"social", "createPost">) =>
      Effect.flatMap(caller, (c) => social.createPost(c, payload)).pipe(
        Effect.map((post) => new Api.PostResponse({ status: "success", post }, true)),
        retryAfter
      )
  )

  // the feed is the hot read: its cached body goes out directly (the typed client still decodes PostPage)
  const feed = ({ urlParams }: RequestOf<"social", "feed">) => Effect.flatMap(caller, (c) => pages.feed(c, urlParams))

  const follow = idempotent(
    "follow",
    Api.FollowResponse,
    ({ payload }: RequestOf<"social", "follow">) =>
      Effect.flatMap(caller, (c) => social.follow(c, payload.handle)).pipe(Effect.map(ok(Api.FollowResponse)))
  )

  const unfollow = ({ payload }: RequestOf<"social", "unfollow">) =>
    Effect.flatMap(caller, (c) => social.unfollow(c, payload.handle)).pipe(Effect.map(ok(Api.Unfollowed)))

  const comment = idempotent(
    "comment",
    Api.PostCommentResponse,
    ({ payload }: RequestOf<"social", "comment">) =>
      Effect.flatMap(caller, (c) => social.comment(c, payload)).pipe(
        Effect.map((comment) => new Api.PostCommentResponse({ status: "success", comment }, true))
      )
  )

  const vote = idempotent(
    "vote",
    Api.VoteResponse,
    ({ payload }: RequestOf<"social", "vote">) => Effect.flatMap(caller, (c) => social.vote(c, payload))
  )

  const getPost = ({ path }: RequestOf<"social", "getPost">) =>
    Effect.flatMap(caller, (c) => social.getPost(c, path.post_id)).pipe(Effect.map(ok(Api.PostDetail)))

  const userPosts = ({ path, urlParams }: RequestOf<"social", "userPosts">) =>
    Effect.flatMap(caller, (c) => social.userPosts(c, path.handle, urlParams)).pipe(Effect.map(ok(Api.PostPage)))

  const followers = ({ path, urlParams }: RequestOf<"social", "followers">) =>
    Effect.flatMap(caller, (c) => social.followers(c, path.handle, urlParams)).pipe(
      Effect.map(({ users, ...r }) => ok(Api.Followers)({ ...r, followers: users }))
    )

  const following = ({ path, urlParams }: RequestOf<"social", "following">) =>
    Effect.flatMap(caller, (c) => social.following(c, path.handle, urlParams)).pipe(
      Effect.map(({ users, ...r }) => ok(Api.Following)({ ...r, following: users }))
    )

  return { createPost, feed, follow, unfollow, comment, vote, getPost, userPosts, followers, following }
})

export const SocialHttpLive = HttpApiBuilder.group(ShoalApi, "social", (handlers) =>
  Effect.map(shared, (h) =>
    handlers
      .handle("createPost", h.createPost)
      .handle("createPostSingular", h.createPost)
      .handle("getPost", h.getPost)
      .handle("userPosts", h.userPosts)
      .handle("feed", h.feed)
      .handle("follow", h.follow)
      .handle("unfollow", h.unfollow)
      .handle("followers", h.followers)
      .handle("following", h.following)
      .handle("comment", h.comment)
      .handle("vote", h.vote))).pipe(withOnly(Social, FeedPages, Idempotency, Auth.Authentication))

export const SocialShortHttpLive = HttpApiBuilder.group(
  ShoalApi,
  "socialShort",
  (handlers) =>
    Effect.map(shared, (h) =>
      handlers
        .handle("createPost", h.createPost)
        .handle("feed", h.feed)
        .handle("follow", h.follow)
        .handle("unfollow", h.unfollow)
        .handle("comment", h.comment)
        .handle("vote", h.vote))
).pipe(withOnly(Social, FeedPages, Idempotency, Auth.Authentication))
