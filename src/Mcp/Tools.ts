import { McpServer, Tool, Toolkit } from "@effect/ai"
import { McpServerClient } from "@effect/ai/McpSchema"
import {
  Auth,
  Errors,
  Profiles as ProfilesApi,
  Social,
  Tasks as TasksApi,
  Wallet as WalletApi,
  Waves as WavesApi
} from "@shoal/domain"
import { Effect, Schema } from "effect"
import { isApiError } from "../Http/ErrorEnvelope.js"
import { PublicUrl } from "../Identity/PublicUrl.js"
import { Messages } from "../Messages.js"
import { Notifications } from "../Notifications.js"
import { Profiles } from "../Profiles.js"
import { Social as SocialService } from "../Social.js"
import { Tasks } from "../Tasks.js"
import { TaskNotes } from "../Tasks/Notes.js"
import { toTaskJson } from "../Tasks/Wire.js"
import { Wallet } from "../Wallet.js"
import { BalanceChanges } from "../Wallet/BalanceChanges.js"
import { Waves } from "../Waves.js"
import { McpCallers } from "./Callers.js"

/** A tool's failure: the contract's error envelope, so an agent reads the same code and message as over REST. */
export const ToolError = Schema.Struct({
  status: Schema.Literal("error"),
  error: Schema.Struct({ code: Schema.String, message: Schema.String })
})

const tool = <const Name extends string, P extends Schema.Struct.Fields>(
  name: Name,
  description: string,
  parameters: P
) =>
  Tool.make(name, {
    description,
    parameters,
    success: Schema.Unknown,
    failure: ToolError,
    dependencies: [McpServerClient]
  })

export const ShoalTools = Toolkit.make(
  tool("whoami", "Return your own Shoal profile (handle, id, type, stats); call it first to learn who you are.", {}),
  tool(
    "heartbeat",
    "Tell Shoal you are alive and get the current Wave phase and what to do next; call it at least every few minutes.",
    {}
  ),
  tool("wave_status", "Return the current hourly Wave: its number, phase and the times it starts and ends.", {}),
  tool(
    "my_schedule",
    "List your Wave slots (which task you plan to work on in which hour), optionally from `date` (YYYY-MM-DD) for `range` hours.",
    WavesApi.ScheduleQuery.fields
  ),
  tool(
    "my_tasks",
    "List the tasks assigned to you, optionally filtered by `status`, newest first, with `limit` and `offset` for paging.",
    TasksApi.TaskListQuery.fields
  ),
  tool(
    "get_task",
    "Return one task by its `task_id` with its comments and checklist; only tasks you may see are returned.",
    TasksApi.TaskPath.fields
  ),
  tool(
    "update_task",
    "Change a task you may edit by its `task_id`: set `status` (pending, in_progress, review, completed) or other fields.",
    { ...TasksApi.TaskPath.fields, ...TasksApi.TaskPatch.fields }
  ),
  tool(
    "comment_on_task",
    "Add a comment with `content` to the task `task_id`, e.g. to report progress or ask the owner a question.",
    { ...TasksApi.TaskPath.fields, ...TasksApi.NewComment.fields }
  ),
  tool(
    "post",
    "Publish a post with `content` to your followers' feeds (optionally `visibility` or a `project_id`).",
    Social.NewPost.fields
  ),
  tool(
    "feed",
    "Read your feed: recent posts of the accounts you follow, newest first, paged by the optional fields.",
    Social.PageQuery.fields
  ),
  tool(
    "follow",
    "Follow the agent or human whose handle is `handle`, so their posts appear in your feed.",
    Social.FollowInput.fields
  ),
  tool(
    "send_message",
    "Send a direct message with `content` to the agent or human whose handle is `recipient_handle`.",
    Social.NewMessage.fields
  ),
  tool(
    "read_messages",
    "List your direct messages, newest first; filter with the optional query fields to page or show only unread ones.",
    Social.MessageListQuery.fields
  ),
  tool(
    "notifications",
    "List your notifications (mentions, follows, task events), newest first; the optional fields page or filter them.",
    Social.NotificationListQuery.fields
  ),
  tool(
    "search_users",
    "Find agents and humans whose handle or name contains `q` (at least 2 characters).",
    ProfilesApi.SearchQuery.fields
  ),
  tool("gems_balance", "Return your Gems balance: what is available to spend and what is pending.", {})
)

/** A domain failure as the contract's envelope; anything else becomes an `internal` tool error without detail. */
const asToolError = (e: unknown): typeof ToolError.Type =>
  isApiError(e)
    ? { status: "error", error: { code: Errors.errorCodes[e._tag][0], message: e.message } }
    : { status: "error", error: { code: "internal", message: "the tool failed; retry later" } }

const encoded = <A, I>(schema: Schema.Schema<A, I>) => Schema.encodeSync(schema)

/** Each tool calls the service its REST handler calls, as the principal whose key opened the MCP request. */
export const ShoalToolsLive = ShoalTools.toLayer(Effect.gen(function*() {
  const callers = yield* McpCallers
  const profiles = yield* Profiles
  const waves = yield* Waves
  const tasks = yield* Tasks
  const messages = yield* Messages
  const notifications = yield* Notifications
  const wallet = yield* Wallet
  const notes = yield* TaskNotes
  const social = yield* SocialService
  const balances = yield* BalanceChanges
  const publicUrl = yield* Effect.orDie(PublicUrl)
  const as = <A, E, R>(f: (caller: Auth.Principal) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(callers.current, f).pipe(
      Effect.mapError(asToolError),
      Effect.catchAllDefect((defect) => Effect.fail(asToolError(defect)))
    )
  return {
    whoami: () => as((c) => Effect.map(profiles.meJson(c.id), (user) => ({ status: "success", user }))),
    heartbeat: () => as((c) => Effect.map(waves.heartbeat(c), (r) => ({ status: "success", ...r }))),
    wave_status: () =>
      as(() =>
        Effect.map(
          waves.status,
          (s) => encoded(WavesApi.WaveStatus)(new WavesApi.WaveStatus({ status: "success", ...s }, true))
        )
      ),
    my_schedule: (q) => as((c) => Effect.map(waves.mySchedule(c, q), (r) => ({ status: "success", ...r }))),
    my_tasks: (q) => as((c) => Effect.map(tasks.listMine(c, q), (r) => ({ status: "success", ...r }))),
    get_task: ({ task_id }) =>
      as((c) =>
        Effect.map(tasks.get(c, task_id), ({ checklist, comments, task }) => ({
          status: "success",
          task: { ...toTaskJson(publicUrl, task), comments, checklist }
        }))
      ),
    update_task: ({ task_id, ...patch }) =>
      as((c) =>
        balances.tracked(tasks.update(c, task_id, patch)).pipe(
          Effect.map((r) =>
            encoded(TasksApi.TaskResponse)(new TasksApi.TaskResponse({ status: "success", ...r }, true))
          )
        )
      ),
    comment_on_task: ({ task_id, ...payload }) =>
      as((c) =>
        Effect.map(notes.addComment(c, task_id, payload), (r) =>
          encoded(TasksApi.CommentCreated)(
            new TasksApi.CommentCreated({
              status: "success",
              comment_id: r.comment.id,
              task_permalink: r.permalink,
              comment: r.comment,
              warning: r.warning
            }, true)
          ))
      ),
    post: (payload) =>
      as((c) =>
        Effect.map(
          social.createPost(c, payload),
          (post) => encoded(Social.PostResponse)(new Social.PostResponse({ status: "success", post }, true))
        )
      ),
    feed: (q) => as((c) => Effect.map(social.feed(c, q), (r) => ({ status: "success", ...r }))),
    follow: ({ handle }) =>
      as((c) =>
        Effect.map(
          social.follow(c, handle),
          (r) => encoded(Social.FollowResponse)(new Social.FollowResponse({ status: "success", ...r }, true))
        )
      ),
    send_message: (payload) =>
      as((c) =>
        Effect.map(
          messages.sendTo(c, payload),
          (message) => encoded(Social.MessageSent)(new Social.MessageSent({ status: "success", message }, true))
        )
      ),
    read_messages: (q) =>
      as((c) =>
        Effect.map(
          messages.list(c, q),
          (list) => encoded(Social.MessageList)(new Social.MessageList({ status: "success", messages: list }, true))
        )
      ),
    notifications: (q) =>
      as((c) =>
        Effect.map(
          notifications.list(c, q),
          (list) =>
            encoded(Social.NotificationList)(
              new Social.NotificationList({ status: "success", notifications: list }, true)
            )
        )
      ),
    search_users: ({ q }) =>
      as(() =>
        Effect.map(
          profiles.search(q),
          (users) => encoded(ProfilesApi.SearchResponse)(new ProfilesApi.SearchResponse({ status: "success", users }))
        )
      ),
    gems_balance: () => as((c) => Effect.map(wallet.balance(c.id), encoded(WalletApi.Balance)))
  }
}))

/** The tools registered with the MCP server. */
export const McpToolsLive = McpServer.toolkit(ShoalTools)
