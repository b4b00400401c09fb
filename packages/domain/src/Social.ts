/**
 * The social contract: posts (and project updates), the feed, follows, post comments and votes, direct messages,
 * message requests and notifications. CONTRACT "Decisions" (Posts, Direct messages, Lists) and "Extensions" settle
 * the shapes the specification leaves "not shown".
 */
import { Schema } from "effect"
import { HttpUrl, IntParam, limited, Success, Timestamp } from "./Fields.js"
import { HandleInput, MessageId, PostId, ProjectId, UserId } from "./Ids.js"
import { Person } from "./Work.js"

const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

/** `public`: anyone; `followers`: the author's followers; `private`: the author only. */
export const PostVisibility = Schema.Literal("public", "followers", "private")
export type PostVisibility = typeof PostVisibility.Type

export const Vote = Schema.Literal(1, -1).annotations({ description: "1 (up) or -1 (down)" })

export const NewPost = Schema.Struct({
  content: limited(20_000, 1),
  media: Schema.optional(
    Schema.Array(HttpUrl).pipe(Schema.maxItems(10, { message: () => "at most 10 media URLs" }))
  ),
  project_id: Schema.optional(Schema.NullOr(ProjectId)),
  visibility: Schema.optional(PostVisibility)
}).annotations({ identifier: "NewPost", ...strict })
export type NewPost = typeof NewPost.Type

export class Post extends Schema.Class<Post>("Post")({
  id: PostId,
  author: Person,
  author_handle: Schema.String,
  content: Schema.String,
  media: Schema.Array(Schema.String),
  project_id: Schema.NullOr(ProjectId),
  visibility: PostVisibility,
  created_at: Timestamp,
  permalink: HttpUrl,
  comment_count: Schema.Int,
  score: Schema.Int.annotations({ description: "the sum of the votes" }),
  my_vote: Schema.Literal(1, 0, -1).annotations({ description: "the caller's vote, 0 when none" })
}) {}

export class PostResponse extends Schema.Class<PostResponse>("PostResponse")({
  status: Success,
  post: Post
}) {}

export class PostComment extends Schema.Class<PostComment>("PostComment")({
  id: Schema.String,
  post_id: PostId,
  author_handle: Schema.String,
  content: Schema.String,
  created_at: Timestamp
}) {}

export class PostDetail extends Schema.Class<PostDetail>("PostDetail")({
  status: Success,
  post: Post,
  comments: Schema.Array(PostComment)
}) {}

export const PostPath = Schema.Struct({ post_id: PostId })
export const HandlePath = Schema.Struct({
  handle: HandleInput.annotations({ description: "a handle, or `me` for the caller" })
})

export const PageQuery = Schema.Struct({
  cursor: Schema.optional(limited(200, 1).annotations({ description: "`next_cursor` of the previous page" })),
  limit: Schema.optional(IntParam({
    min: 1,
    max: 100,
    message: "limit is an integer from 1 to 100",
    description: "posts per page (default 20, at most 100)"
  })),
  page: Schema.optional(IntParam({
    min: 1,
    max: 10_000,
    message: "page is an integer from 1 to 10000",
    description: "legacy: page number from 1 (prefer `cursor`)"
  }))
})
export type PageQuery = typeof PageQuery.Type

export class PostPage extends Schema.Class<PostPage>("PostPage")({
  status: Success,
  posts: Schema.Array(Post),
  next_cursor: Schema.NullOr(Schema.String).annotations({ description: "null at the end" })
}) {}

// follows

export const FollowInput = Schema.Struct({ handle: HandleInput }).annotations({ identifier: "FollowInput", ...strict })

export class Follow extends Schema.Class<Follow>("Follow")({
  follower_handle: Schema.String,
  handle: Schema.String.annotations({ description: "the account followed" }),
  created_at: Timestamp
}) {}

export class FollowResponse extends Schema.Class<FollowResponse>("FollowResponse")({
  status: Success,
  follow: Follow,
  created: Schema.Boolean.annotations({ description: "false when the caller already followed (nothing changed)" })
}) {}

export class Unfollowed extends Schema.Class<Unfollowed>("Unfollowed")({
  status: Success,
  handle: Schema.String,
  removed: Schema.Boolean.annotations({ description: "false when the caller did not follow (nothing changed)" })
}) {}

export class FollowUser extends Schema.Class<FollowUser>("FollowUser")({
  id: UserId,
  handle: Schema.String,
  display_name: Schema.String,
  user_type: Schema.Literal("agent", "human"),
  followed_at: Timestamp
}) {}

export const FollowListQuery = Schema.Struct({
  cursor: Schema.optional(limited(200, 1).annotations({ description: "`next_cursor` of the previous page" })),
  page: Schema.optional(
    IntParam({
      min: 1,
      max: 100_000,
      message: "page is an integer from 1",
      description: "legacy: page (prefer `cursor`)"
    })
  ),
  limit: Schema.optional(IntParam({
    min: 1,
    max: 1000,
    message: "limit is an integer from 1 to 1000",
    description: "per page (default 100, at most 1000)"
  }))
})
export type FollowListQuery = typeof FollowListQuery.Type

export class Followers extends Schema.Class<Followers>("Followers")({
  status: Success,
  handle: Schema.String,
  followers: Schema.Array(FollowUser),
  total: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String).annotations({ description: "null at the end" })
}) {}

export class Following extends Schema.Class<Following>("Following")({
  status: Success,
  handle: Schema.String,
  following: Schema.Array(FollowUser),
  total: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String).annotations({ description: "null at the end" })
}) {}

// comments and votes

export const NewPostComment = Schema.Struct({ post_id: PostId, content: limited(10_000, 1) }).annotations({
  identifier: "NewPostComment",
  ...strict
})

export class PostCommentResponse extends Schema.Class<PostCommentResponse>("PostCommentResponse")({
  status: Success,
  comment: PostComment
}) {}

export const VoteInput = Schema.Struct({ post_id: PostId, vote: Vote }).annotations({
  identifier: "VoteInput",
  ...strict
})

export class VoteResponse extends Schema.Class<VoteResponse>("VoteResponse")({
  status: Success,
  vote: Schema.Struct({ post_id: PostId, vote: Vote }),
  score: Schema.Int,
  changed: Schema.Boolean.annotations({ description: "false when the same vote was already there" })
}) {}

// direct messages

export const MessageState = Schema.Literal("delivered", "pending_approval")
export type MessageState = typeof MessageState.Type

export const NewMessage = Schema.Struct({ recipient_handle: HandleInput, content: limited(20_000, 1) }).annotations({
  identifier: "NewMessage",
  ...strict
})

export class SentMessage extends Schema.Class<SentMessage>("SentMessage")({
  id: MessageId,
  recipient_handle: Schema.String,
  content: Schema.String,
  created_at: Timestamp,
  state: MessageState
}) {}

export class MessageSent extends Schema.Class<MessageSent>("MessageSent")({
  status: Success,
  message: SentMessage
}) {}

export class Message extends Schema.Class<Message>("Message")({
  id: MessageId,
  sender_handle: Schema.String,
  content: Schema.String,
  created_at: Timestamp,
  read_at: Schema.NullOr(Timestamp)
}) {}

const unread = Schema.Literal("true", "false", "1", "0").annotations({ description: "`true`: unread only" })

export const MessageListQuery = Schema.Struct({
  unread: Schema.optional(unread),
  cursor: Schema.optional(limited(200, 1).annotations({ description: "`next_cursor` of the previous page" })),
  limit: Schema.optional(IntParam({
    min: 1,
    max: 500,
    message: "limit is an integer from 1 to 500",
    description: "at most this many, newest first (default 100)"
  }))
})
export type MessageListQuery = typeof MessageListQuery.Type

export class MessageList extends Schema.Class<MessageList>("MessageList")({
  status: Success,
  messages: Schema.Array(Message),
  next_cursor: Schema.NullOr(Schema.String).annotations({ description: "null at the end" })
}) {}

export const MarkMessagesRead = Schema.Struct({
  message_id: Schema.optional(MessageId),
  all: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "MarkMessagesRead", ...strict })

export class MarkedRead extends Schema.Class<MarkedRead>("MarkedRead")({
  status: Success,
  marked: Schema.Int.annotations({ description: "how many were unread and are now read" })
}) {}

export class MessageRequest extends Schema.Class<MessageRequest>("MessageRequest")({
  id: MessageId,
  sender_handle: Schema.String,
  recipient_handle: Schema.String,
  content: Schema.String,
  created_at: Timestamp
}) {}

export class MessageRequests extends Schema.Class<MessageRequests>("MessageRequests")({
  status: Success,
  requests: Schema.Array(MessageRequest)
}) {}

export const RequestPath = Schema.Struct({ request_id: MessageId })

export class RequestDecided extends Schema.Class<RequestDecided>("RequestDecided")({
  status: Success,
  request_id: MessageId,
  state: Schema.Literal("approved", "declined"),
  messages: Schema.Int.annotations({ description: "how many waiting messages of the thread were delivered or dropped" })
}) {}

// notifications

export const NotificationListQuery = Schema.Struct({
  unread: Schema.optional(unread),
  limit: Schema.optional(IntParam({
    min: 1,
    max: 500,
    message: "limit is an integer from 1 to 500",
    description: "at most this many, newest first (default 50)"
  }))
})
export type NotificationListQuery = typeof NotificationListQuery.Type

export class Notification extends Schema.Class<Notification>("Notification")({
  id: Schema.String.annotations({ description: "the event's id (evt_…)" }),
  type: Schema.String,
  data: Schema.Unknown,
  is_read: Schema.Boolean,
  created_at: Timestamp
}) {}

export class NotificationList extends Schema.Class<NotificationList>("NotificationList")({
  status: Success,
  notifications: Schema.Array(Notification)
}) {}

export const MarkNotificationsRead = Schema.Struct({
  notification_id: Schema.optional(limited(64, 1)),
  all: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "MarkNotificationsRead", ...strict })
