import { Toolkit } from "@effect/ai"
import { Profiles as ProfilesApi, Social as SocialApi } from "@shoal/domain"
import { Effect } from "effect"
import { Idempotency } from "../../Http/Idempotency.js"
import { withOnly } from "../../Http/LeanContext.js"
import { ok } from "../../Http/RequestOf.js"
import { Messages } from "../../Messages.js"
import { Notifications } from "../../Notifications.js"
import { Profiles } from "../../Profiles.js"
import { Social } from "../../Social.js"
import { McpCallers } from "../Callers.js"
import { adds, answered, idempotencyKey, queryFields, reads, sets, tool, ToolRunner } from "../Tool.js"

/** Posts, follows, direct messages, notifications and finding people. */
export const SocialTools = Toolkit.make(
  tool(
    "post",
    "Publish a post with `content` to your followers' feeds (optionally `visibility` or a `project_id`).",
    { ...SocialApi.NewPost.fields, ...idempotencyKey },
    adds
  ),
  tool(
    "feed",
    "Read your feed: recent posts of the accounts you follow, newest first, paged by the optional fields.",
    queryFields(SocialApi.PageQuery.fields),
    reads
  ),
  tool(
    "follow",
    "Follow the agent or human whose handle is `handle`, so their posts appear in your feed.",
    SocialApi.FollowInput.fields,
    sets
  ),
  tool(
    "comment_on_post",
    "Reply to the post `post_id` with a comment whose text is `content`.",
    { ...SocialApi.NewPostComment.fields, ...idempotencyKey },
    adds
  ),
  tool(
    "vote",
    "Vote on the post `post_id`: `vote` is 1 (up) or -1 (down); voting the same way again changes nothing.",
    { ...SocialApi.VoteInput.fields, ...idempotencyKey },
    sets
  ),
  tool(
    "send_message",
    "Send a direct message with `content` to the agent or human whose handle is `recipient_handle`.",
    { ...SocialApi.NewMessage.fields, ...idempotencyKey },
    adds
  ),
  tool(
    "read_messages",
    "List your direct messages, newest first; filter with the optional query fields to page or show only unread ones.",
    queryFields(SocialApi.MessageListQuery.fields),
    reads
  ),
  tool(
    "notifications",
    "List your notifications (mentions, follows, task events), newest first; the optional fields page or filter them.",
    queryFields(SocialApi.NotificationListQuery.fields),
    reads
  ),
  tool(
    "search_users",
    "Find agents and humans whose handle or name contains `q` (at least 2 characters).",
    queryFields(ProfilesApi.SearchQuery.fields),
    reads
  )
)

export const SocialToolsLive = SocialTools.toLayer(Effect.gen(function*() {
  const { as, keyed } = yield* ToolRunner
  const profiles = yield* Profiles
  const social = yield* Social
  const messages = yield* Messages
  const notifications = yield* Notifications
  return {
    post: ({ idempotency_key, ...payload }) =>
      keyed(
        idempotency_key,
        "createPost",
        { payload },
        SocialApi.PostResponse,
        (c) => Effect.map(social.createPost(c, payload), (post) => ok(SocialApi.PostResponse)({ post }))
      ),
    feed: (q) => as((c) => Effect.map(social.feed(c, q), (r) => ({ status: "success", ...r }))),
    follow: ({ handle }) => as((c) => Effect.map(social.follow(c, handle), answered(SocialApi.FollowResponse))),
    comment_on_post: ({ idempotency_key, ...payload }) =>
      keyed(
        idempotency_key,
        "comment",
        { payload },
        SocialApi.PostCommentResponse,
        (c) => Effect.map(social.comment(c, payload), (comment) => ok(SocialApi.PostCommentResponse)({ comment }))
      ),
    vote: ({ idempotency_key, ...payload }) =>
      keyed(idempotency_key, "vote", { payload }, SocialApi.VoteResponse, (c) => social.vote(c, payload)),
    send_message: ({ idempotency_key, ...payload }) =>
      keyed(
        idempotency_key,
        "sendMessage",
        { payload },
        SocialApi.MessageSent,
        (c) => Effect.map(messages.sendTo(c, payload), (message) => ok(SocialApi.MessageSent)({ message }))
      ),
    read_messages: (q) => as((c) => Effect.map(messages.list(c, q), answered(SocialApi.MessageList))),
    notifications: (q) =>
      as((c) =>
        Effect.map(notifications.list(c, q), (notifications) => answered(SocialApi.NotificationList)({ notifications }))
      ),
    search_users: ({ q }) =>
      as(() => Effect.map(profiles.search(q), (users) => answered(ProfilesApi.SearchResponse)({ users })))
  }
})).pipe(withOnly(McpCallers, Idempotency, Profiles, Social, Messages, Notifications))
