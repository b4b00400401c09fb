/**
 * Waves (the hourly rhythm), schedule slots, check-in, wave completion, heartbeat, fleet and token usage: the
 * contract. The state of the running Wave follows the clock (CONTRACT "Wave states"); a slot is an agent's hour
 * with the task scheduled in it (the task's `wave_scheduled`), and its outcome once the hour has passed. The HttpApi
 * groups are in `WavesApi.ts`.
 */
import { Schema } from "effect"
import { IntParam, limited, optionalBody, Success, Timestamp } from "./Fields.js"
import { CommentId, Handle, MessageId, ProjectId, TaskId, UserId } from "./Ids.js"
import { DateTimeInput, validDate } from "./Work.js"

const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

export const WaveState = Schema.Literal("PREPARATION", "FLOW", "SURFACE")
export type WaveState = typeof WaveState.Type

export const WaveId = Schema.String.annotations({
  description: "the Wave's UTC hour as YYYYMMDDHH followed by the agent's handle, e.g. 2026112314alice"
})

/** A POST whose fields are all optional (`Fields.optionalBody`); with no fields, the body must be empty or `{}`. */
const optionalFields = <F extends Schema.Struct.Fields>(identifier: string, fields: F) =>
  // an empty Struct accepts any non-null value (even `[]`): a body with no fields must be an empty object
  optionalBody(
    (Object.keys(fields).length === 0
      ? Schema.Struct(fields).pipe(
        Schema.filter((v) => typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0, {
          message: () => "takes no fields: send an empty body or {}"
        })
      )
      : Schema.Struct(fields)).annotations({ identifier, ...strict })
  )

export class WaveStatus extends Schema.Class<WaveStatus>("WaveStatus")({
  status: Success,
  state: WaveState.annotations({ description: "PREPARATION (minute 0–9), FLOW (10–49), SURFACE (50–59)" }),
  server_time: Timestamp,
  remaining_seconds: Schema.Int.annotations({ description: "seconds until `next_state_start`" }),
  next_state_start: Timestamp.annotations({ description: "the next phase boundary" }),
  wave_time: Timestamp.annotations({ description: "the start of the running Wave (the top of the current hour)" })
}) {}

export const CheckIn = optionalFields("CheckIn", {})

export class CheckedIn extends Schema.Class<CheckedIn>("CheckedIn")({
  status: Success,
  message: Schema.String,
  already_checked_in: Schema.Boolean.annotations({ description: "true for a second check-in in the same hour" }),
  wave_id: WaveId,
  state: WaveState,
  checked_in_at: Timestamp
}) {}

export const SlotStatus = Schema.Literal("scheduled", "completed", "missed")
export type SlotStatus = typeof SlotStatus.Type

export class SlotTask extends Schema.Class<SlotTask>("SlotTask")({
  id: TaskId,
  title: Schema.String,
  project_id: ProjectId
}) {}

export class Slot extends Schema.Class<Slot>("Slot")({
  wave_id: WaveId,
  time: Timestamp.annotations({ description: "the top of the slot's hour (UTC)" }),
  status: SlotStatus,
  is_missed: Schema.Boolean,
  task: Schema.NullOr(SlotTask).annotations({ description: "null for a Wave completed with nothing scheduled" })
}) {}

const DateParam = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, { message: () => "date must be YYYY-MM-DD" }),
  Schema.filter(validDate, { message: () => "date must be a calendar date, YYYY-MM-DD, from 0001-01-01 to 9999-12-31" })
).annotations({ description: "a UTC day, YYYY-MM-DD", jsonSchema: { type: "string", format: "date" } })

export const ScheduleQuery = Schema.Struct({
  date: Schema.optional(DateParam),
  range: Schema.optional(IntParam({
    min: 1,
    max: 168,
    message: "range is an integer from 1 to 168",
    description: "hours to show (default 24, at most 168)"
  }))
})
export type ScheduleQuery = typeof ScheduleQuery.Type

export class ScheduleResponse extends Schema.Class<ScheduleResponse>("ScheduleResponse")({
  status: Success,
  start_time: Timestamp,
  end_time: Timestamp,
  schedule: Schema.Array(Slot)
}) {}

export const AgentRef = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(64)
).annotations({ description: "an agent's id, its handle, or `me`" })

export const AgentPath = Schema.Struct({ agent: AgentRef })

export const DayQuery = Schema.Struct({ date: Schema.optional(DateParam) })

export class DaySchedule extends Schema.Class<DaySchedule>("DaySchedule")({
  status: Success,
  agent_id: UserId,
  handle: Handle,
  date: Schema.String,
  schedule: Schema.Array(Slot)
}) {}

export const SetSlot = Schema.Struct({
  wave_time: DateTimeInput.annotations({ description: "the slot's hour: exactly on the hour (UTC), else a 422" }),
  task_id: Schema.NullOr(TaskId).annotations({ description: "the task to put in the slot; null clears it" }),
  force: Schema.optional(Schema.Boolean).annotations({
    description: "true takes the slot from another task (409 without it)"
  })
}).annotations({ identifier: "SetSlot", ...strict })
export type SetSlot = typeof SetSlot.Type

export class SlotSet extends Schema.Class<SlotSet>("SlotSet")({
  status: Success,
  wave_id: WaveId,
  wave_time: Timestamp,
  task_id: Schema.NullOr(TaskId),
  replaced_task_id: Schema.NullOr(TaskId).annotations({ description: "the task `force` took the slot from" })
}) {}

export const CompletionStatus = Schema.Literal("in_progress", "review", "completed")

/** The fields of `WaveComplete` (its body may also be empty), for callers that build their own input schema. */
export const WaveCompleteFields = {
  wave_id: Schema.optional(limited(64, 11).annotations({ description: "YYYYMMDDHH + your handle" })),
  task_status: Schema.optional(CompletionStatus),
  comment: Schema.optional(limited(10_000, 1)),
  notify_owner: Schema.optional(Schema.Boolean).annotations({ description: "default true" })
}
export const WaveComplete = optionalFields("WaveComplete", {
  ...WaveCompleteFields,
  notes: Schema.optional(limited(10_000, 1)).annotations({
    description: "the same as `comment`, the word older plugins send"
  })
})
export type WaveComplete = typeof WaveComplete.Type

export class WaveCompleted extends Schema.Class<WaveCompleted>("WaveCompleted")({
  status: Success,
  wave_id: WaveId,
  task_id: Schema.NullOr(TaskId),
  comment_id: Schema.NullOr(CommentId),
  message_id: Schema.NullOr(MessageId).annotations({ description: "the DM to the task's owner, when one was sent" })
}) {}

export const Heartbeat = optionalFields("Heartbeat", {})

export class HeartbeatAck extends Schema.Class<HeartbeatAck>("HeartbeatAck")({
  status: Success,
  last_heartbeat_at: Timestamp,
  connected: Schema.Boolean,
  server_time: Timestamp
}) {}

export class FleetMember extends Schema.Class<FleetMember>("FleetMember")({
  id: UserId,
  display_name: Schema.String,
  handle: Handle,
  last_heartbeat_at: Schema.NullOr(Timestamp),
  connected: Schema.Boolean,
  is_me: Schema.Boolean
}) {}

export class Fleet extends Schema.Class<Fleet>("Fleet")({
  status: Success,
  fleet: Schema.Array(FleetMember)
}) {}

const Tokens = Schema.Int.pipe(
  Schema.between(0, 1e12, { message: () => "must be an integer from 0 to 10^12" })
).annotations({ jsonSchema: { type: "integer", minimum: 0, maximum: 1e12 } })

export const UsageReport = Schema.Struct({
  model: limited(200, 1),
  total_tokens: Tokens,
  input_tokens: Schema.optional(Tokens),
  output_tokens: Schema.optional(Tokens),
  provider: Schema.optional(limited(100, 1)),
  project_id: Schema.optional(ProjectId),
  task_id: Schema.optional(TaskId)
}).annotations({ identifier: "UsageReport", ...strict })
export type UsageReport = typeof UsageReport.Type

export class UsageRecord extends Schema.Class<UsageRecord>("UsageRecord")({
  id: Schema.String,
  model: Schema.String,
  provider: Schema.NullOr(Schema.String),
  input_tokens: Schema.Int,
  output_tokens: Schema.Int,
  total_tokens: Schema.Int,
  project_id: Schema.NullOr(ProjectId),
  task_id: Schema.NullOr(TaskId),
  created_at: Timestamp
}) {}

export class UsageRecorded extends Schema.Class<UsageRecorded>("UsageRecorded")({
  status: Success,
  usage: UsageRecord
}) {}

export const UsageQuery = Schema.Struct({
  from: Schema.optional(DateParam),
  to: Schema.optional(DateParam)
})
export type UsageQuery = typeof UsageQuery.Type

const totalsFields = {
  input_tokens: Schema.Int,
  output_tokens: Schema.Int,
  total_tokens: Schema.Int,
  reports: Schema.Int
}
export class UsageTotals extends Schema.Class<UsageTotals>("UsageTotals")(totalsFields) {}

export class UsageSummary extends Schema.Class<UsageSummary>("UsageSummary")({
  status: Success,
  from: Schema.String,
  to: Schema.String,
  totals: UsageTotals,
  by_day: Schema.Array(Schema.Struct({ day: Schema.String, ...totalsFields })),
  by_model: Schema.Array(Schema.Struct({ model: Schema.String, ...totalsFields })),
  by_project: Schema.Array(Schema.Struct({ project_id: Schema.NullOr(ProjectId), ...totalsFields }))
}) {}
