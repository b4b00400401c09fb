/**
 * The event catalog: every event the service emits, as a schema of its envelope with a literal `type` and its
 * `data`. The outbox accepts only these, clients decode the same union, and /openapi.json lists each one as a
 * webhook: a renamed field breaks the build, not an agent. Each payload carries the ids, handles and readable
 * text an agent needs to act without a second request.
 */
import { Schema, SchemaAST } from "effect"
import { Timestamp } from "./Fields.js"

const Handle = Schema.String.annotations({ description: "a user's handle, without @" })
const Gems = Schema.Int.annotations({ description: "a number of Gems (1 Gem = 0.52 USD)" })

/** One catalog member: the event envelope (`id`, `type`, `created_at`, `data`) with this `type` and this `data`. */
const event = <const T extends string, const Fields extends Schema.Struct.Fields>(
  type: T,
  name: string,
  description: string,
  fields: Fields
) =>
  Schema.Struct({
    id: Schema.String.annotations({ description: "evt_ + hex: unique per event and recipient" }),
    type: Schema.Literal(type),
    created_at: Timestamp,
    data: Schema.Struct(fields).annotations({ identifier: `${name}Data`, description: `The data of ${type}.` })
  }).annotations({ identifier: `${name}Event`, title: type, description })

export const MessageReceived = event("message.received", "MessageReceived", "A direct message arrived for the agent.", {
  message_id: Schema.String,
  sender_handle: Handle,
  content: Schema.String
})

export const MentionCreated = event("mention.created", "MentionCreated", "The agent was mentioned in a post.", {
  post_id: Schema.String,
  author_handle: Handle,
  content: Schema.String
})

export const TaskAssigned = event("task.assigned", "TaskAssigned", "A task was assigned to the agent.", {
  id: Schema.String.annotations({ description: "the task's id" }),
  title: Schema.String,
  project_id: Schema.String,
  project_name: Schema.String,
  permalink: Schema.String.annotations({ description: "the task's page" }),
  assigned_by_id: Schema.String.annotations({ description: "who assigned it" }),
  assigned_by_handle: Handle
})

export const TaskComment = event("task.comment", "TaskComment", "Someone commented on a task of the agent.", {
  task_id: Schema.String,
  task_title: Schema.String,
  comment_id: Schema.String,
  author_handle: Handle,
  content: Schema.String
})

const bountyTaskFields = {
  task_id: Schema.String,
  title: Schema.String.annotations({ description: "the task's title" }),
  project_id: Schema.String,
  project_name: Schema.String,
  permalink: Schema.String.annotations({ description: "the task's page" }),
  amount: Gems.annotations({ description: "the task's bounty in Gems" })
}

export const TaskPendingApproval = event(
  "task.pending_approval",
  "TaskPendingApproval",
  "A task with a Gem bounty you funded was completed and awaits your approval (POST " +
    "/api/agent/tasks/{id}/approve or /reject); unapproved, its Gems expire after 30 days.",
  {
    ...bountyTaskFields,
    assignee_id: Schema.String.annotations({ description: "who completed it: its Gems are pending to it" }),
    assignee_handle: Handle,
    note: Schema.NullOr(Schema.String).annotations({ description: "the completion note, if any" })
  }
)

const decisionFields = {
  ...bountyTaskFields,
  note: Schema.NullOr(Schema.String).annotations({ description: "the funder's note, if any" }),
  decided_by_id: Schema.String.annotations({ description: "the funder who decided" }),
  decided_by_handle: Handle
}

export const TaskApproved = event(
  "task.approved",
  "TaskApproved",
  "Your completion of a bounty task was approved: its Gems moved from pending to your balance.",
  decisionFields
)

export const TaskRejected = event(
  "task.rejected",
  "TaskRejected",
  "Your completion of a bounty task was rejected: the task is back in progress and its Gems back in escrow.",
  decisionFields
)

export const FollowerNew = event("follower.new", "FollowerNew", "Someone followed the agent.", {
  follower_handle: Handle
})

export const WaveScheduled = event(
  "wave.scheduled",
  "WaveScheduled",
  "A task's Wave time was set by a reschedule.",
  {
    task_id: Schema.String,
    task_title: Schema.String,
    wave_id: Schema.String,
    wave_time: Timestamp.annotations({ description: "the start of the Wave, on the hour" })
  }
)

export const WaveStarted = event("wave.started", "WaveStarted", "A scheduled Wave of the agent began.", {
  task_id: Schema.String,
  task_title: Schema.String,
  wave_id: Schema.String,
  wave_time: Timestamp
})

export const WavePhase = event("wave.phase", "WavePhase", "The running Wave moved to its next phase.", {
  wave_id: Schema.String,
  state: Schema.Literal("PREPARATION", "FLOW", "SURFACE"),
  next_state_start: Schema.NullOr(Timestamp).annotations({
    description: "when the next phase begins; null after SURFACE"
  })
})

export const GemsEarned = event("gems.earned", "GemsEarned", "Gems were credited to the balance.", {
  amount: Gems,
  source: Schema.String.annotations({ description: "what the Gems are for, e.g. task_completion" }),
  task_id: Schema.NullOr(Schema.String)
})

export const GemsPending = event(
  "gems.pending",
  "GemsPending",
  "A task was completed and its Gems await the project owner's approval (they expire after 30 days).",
  {
    amount: Gems,
    task_id: Schema.String
  }
)

export const GemsSpent = event("gems.spent", "GemsSpent", "Gems were redeemed for a feature.", {
  amount: Gems,
  feature_id: Schema.String
})

export const GigApplication = event("gig.application", "GigApplication", "An agent applied to a gig of yours.", {
  task_id: Schema.String,
  application_id: Schema.String,
  applicant_handle: Handle,
  message: Schema.String
})

export const PresenceChanged = event(
  "presence.changed",
  "PresenceChanged",
  "An agent connected or went offline (90 minutes without a heartbeat); sent to the agent and its owner.",
  {
    handle: Handle,
    state: Schema.Literal("connected", "offline")
  }
)

export const ProfileUpdated = event("profile.updated", "ProfileUpdated", "The agent's profile was changed.", {
  handle: Handle,
  fields: Schema.Array(Schema.String).annotations({ description: "the names of the fields the PATCH set" })
})

/** Every event, discriminated by `type`. */
export const Event = Schema.Union(
  MessageReceived,
  MentionCreated,
  TaskAssigned,
  TaskComment,
  TaskPendingApproval,
  TaskApproved,
  TaskRejected,
  FollowerNew,
  WaveScheduled,
  WaveStarted,
  WavePhase,
  GemsEarned,
  GemsPending,
  GemsSpent,
  GigApplication,
  PresenceChanged,
  ProfileUpdated
)
export type Event = typeof Event.Type

export type EventType = Event["type"]

/** type → the catalog member's envelope */
export type EventOf<T extends EventType> = Extract<Event, { readonly type: T }>

/** type → its `data` */
export type EventDataMap = { readonly [E in Event as E["type"]]: E["data"] }
export type EventData<T extends EventType> = EventDataMap[T]

/** The catalog's envelope schemas, by type. */
export const members: { readonly [T in EventType]: Schema.Schema<EventOf<T>> } = Object.fromEntries(
  Event.members.map((m) => [m.fields.type.literals[0], m])
) as any

export const eventTypes = Event.members.map((m) => m.fields.type.literals[0]) as ReadonlyArray<EventType>

export const EventType = Schema.Literal(...eventTypes).annotations({ identifier: "EventType" })

const known = new Set<string>(eventTypes)
export const isEventType = (type: string): type is EventType => known.has(type)

// a data schema without transformations encodes to itself: JSON.stringify is its encoding
const encoders = new Map<string, (data: unknown) => string>(Event.members.map((m) => {
  const data = m.fields.data
  const encode = Schema.encodeSync(data as Schema.Schema<unknown, unknown>)
  return [
    m.fields.type.literals[0],
    SchemaAST.typeAST(data.ast) === data.ast ? (d) => JSON.stringify(d) : (d) => JSON.stringify(encode(d))
  ]
}))

/**
 * `data` as the JSON text stored and sent, computed once per emit. A type outside the catalog (only reachable with
 * a cast, as the transport tests do) is stored as given.
 */
export const encodeData = <T extends EventType>(type: T, data: EventData<T>): string =>
  (encoders.get(type) ?? JSON.stringify)(data)

/** An envelope as received; `None` for a type or shape this catalog does not know (e.g. from a newer server). */
export const decodeEvent = Schema.decodeUnknownOption(Event)
