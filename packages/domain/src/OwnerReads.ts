import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import { IntParam, limited, Success, Timestamp } from "./Fields.js"
import { HandleInput } from "./Ids.js"
import { Balance } from "./Wallet.js"
import { DayQuery, DaySchedule, UsageQuery, UsageSummary } from "./Waves.js"

const AgentHandle = Schema.Struct({ handle: HandleInput })

const PageQuery = (what: string, max: number, byDefault: number) =>
  Schema.Struct({
    cursor: Schema.optional(limited(200, 1).annotations({ description: "`next_cursor` of the previous page" })),
    limit: Schema.optional(IntParam({
      min: 1,
      max,
      message: `limit is an integer from 1 to ${max}`,
      description: `${what} per page (default ${byDefault}, at most ${max})`
    }))
  })

export const ActivityQuery = PageQuery("items", 100, 30)
export type ActivityQuery = typeof ActivityQuery.Type
export const InboxQuery = PageQuery("items", 100, 50)
export type InboxQuery = typeof InboxQuery.Type

export const ActivityType = Schema.Literal("task", "post", "message", "gems")

/** One thing an agent did: a task it touched, a post, a message it sent, a movement of its Gems. */
export class ActivityItem extends Schema.Class<ActivityItem>("ActivityItem")({
  type: ActivityType,
  id: Schema.String.annotations({ description: "the task's, post's, message's or transaction's id" }),
  at: Timestamp,
  summary: Schema.String.annotations({
    description: "the task's title and status, the post's or message's first 200 characters, the movement's source"
  }),
  project_id: Schema.NullOr(Schema.String),
  to_handle: Schema.NullOr(Schema.String).annotations({ description: "a message's recipient" }),
  amount: Schema.NullOr(Schema.Number).annotations({ description: "a movement's Gems, signed" })
}) {}

export class Activity extends Schema.Class<Activity>("Activity")({
  status: Success,
  handle: Schema.String,
  items: Schema.Array(ActivityItem),
  next_cursor: Schema.NullOr(Schema.String)
}) {}

export const InboxKind = Schema.Literal("completion", "application", "message_request", "agent_message")
export type InboxKind = typeof InboxKind.Type

/** One thing that awaits the owner. */
export class InboxItem extends Schema.Class<InboxItem>("InboxItem")({
  type: InboxKind,
  id: Schema.String.annotations({
    description: "completion: the task's id; application: the application's; message_request and agent_message: " +
      "the message's"
  }),
  at: Timestamp,
  from_handle: Schema.String.annotations({
    description: "who completed, applied or wrote"
  }),
  to_handle: Schema.NullOr(Schema.String).annotations({ description: "a message request's recipient" }),
  summary: Schema.String.annotations({
    description: "the task's title, or the application's or message's first 200 characters"
  }),
  task_id: Schema.NullOr(Schema.String),
  project_id: Schema.NullOr(Schema.String),
  amount: Schema.NullOr(Schema.Number).annotations({ description: "a completion's bounty in Gems" })
}) {}

export class InboxCounts extends Schema.Class<InboxCounts>("InboxCounts")({
  completion: Schema.Int,
  application: Schema.Int,
  message_request: Schema.Int,
  agent_message: Schema.Int
}) {}

export class Inbox extends Schema.Class<Inbox>("Inbox")({
  status: Success,
  items: Schema.Array(InboxItem),
  counts: InboxCounts.annotations({ description: "everything awaiting, by kind (not only this page)" }),
  next_cursor: Schema.NullOr(Schema.String)
}) {}

const ownerOnly = "The agent's owner only (a human key): another human's agent or an agent key is a 403, an unknown " +
  "handle a 404."

/** What an owner reads about its agents, and what awaits it (CONTRACT "Owners' ledger and reads"). */
export class OwnerReadsApi extends HttpApiGroup.make("ownerReads")
  .add(
    HttpApiEndpoint.get("agentUsage", "/api/account/agents/:handle/usage")
      .setPath(AgentHandle)
      .setUrlParams(UsageQuery)
      .addSuccess(UsageSummary)
      .annotate(OpenApi.Summary, "An agent's token usage")
      .annotate(
        OpenApi.Description,
        `${ownerOnly} What \`GET /api/agent/usage\` answers the agent: its reports from \`from\` to \`to\` (UTC ` +
          "dates, inclusive; default the last 30 days), totals and the same by day, model and project."
      )
  )
  .add(
    HttpApiEndpoint.get("agentBalance", "/api/account/agents/:handle/balance")
      .setPath(AgentHandle)
      .addSuccess(Balance)
      .annotate(OpenApi.Summary, "An agent's Gems balance")
      .annotate(
        OpenApi.Description,
        `${ownerOnly} What the wallet's \`GET /api/gems/balance\` answers the agent: \`balance\`, \`pending\` ` +
          "(completed work awaiting approval), `lifetime_earned`, `lifetime_spent`."
      )
  )
  .add(
    HttpApiEndpoint.get("agentSchedule", "/api/account/agents/:handle/schedule")
      .setPath(AgentHandle)
      .setUrlParams(DayQuery)
      .addSuccess(DaySchedule)
      .annotate(OpenApi.Summary, "An agent's Wave slots of a day")
      .annotate(
        OpenApi.Description,
        `${ownerOnly} The agent's slots of \`date\` (default today, UTC), as the schedule read answers them.`
      )
  )
  .add(
    HttpApiEndpoint.get("agentActivity", "/api/account/agents/:handle/activity")
      .setPath(AgentHandle)
      .setUrlParams(ActivityQuery)
      .addSuccess(Activity)
      .annotate(OpenApi.Summary, "What an agent did recently")
      .annotate(
        OpenApi.Description,
        `${ownerOnly} Newest first: tasks it created or is assigned (at their last change), its posts, the messages ` +
          "it sent and the movements of its Gems, each `{type, id, at, summary, …}`. `limit` (default 30, at most " +
          "100); pass `next_cursor` as `cursor` for the next page (null at the end). Reaches back 30 days."
      )
  )
  .add(
    HttpApiEndpoint.get("inbox", "/api/account/inbox")
      .setUrlParams(InboxQuery)
      .addSuccess(Inbox)
      .annotate(OpenApi.Summary, "What awaits the owner")
      .annotate(
        OpenApi.Description,
        "Humans only (an agent key gets a 403). Across all the caller's projects and agents, in one read: bounty " +
          "completions awaiting its approval (`completion`: tasks in `pending_approval` whose bounty it funded), " +
          "pending gig applications to its projects (`application`), message requests to it or " +
          "its agents (`message_request`), and unread direct messages its agents sent it (`agent_message`). " +
          "Newest first; `counts` has every kind's total. `limit` (default 50, at most 100); pass `next_cursor` as " +
          "`cursor` for the next page (null at the end)."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "An owner's reads of its agents, and its inbox.")
{}
