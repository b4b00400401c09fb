/** The Waves groups of the agent API: the public Wave state, and schedule, completion, heartbeat, fleet, usage. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Authentication } from "./Auth.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import {
  AgentPath,
  CheckedIn,
  CheckIn,
  DayQuery,
  DaySchedule,
  Fleet,
  Heartbeat,
  HeartbeatAck,
  ScheduleQuery,
  ScheduleResponse,
  SetSlot,
  SlotSet,
  UsageQuery,
  UsageRecorded,
  UsageReport,
  UsageSummary,
  WaveComplete,
  WaveCompleted,
  WaveStatus
} from "./Waves.js"

const completeDoc = "All fields optional (an empty body is fine). Without `wave_id`, the active Wave: the caller's " +
  "slot of the current UTC hour, else its latest uncompleted slot of the past 2 hours, else 404. Marks the slot " +
  "completed, sets the task's status (`task_status`), adds `comment` (or `notes`, the older plugins' name for it; " +
  "both given must agree) as a task comment and, unless " +
  "`notify_owner` is false, sends the task's owner a DM (skipped when the owner is the caller); all in one " +
  "transaction. Takes an optional `Idempotency-Key`."

const waveComplete = <const N extends string>(name: N, path: `/${string}`) =>
  HttpApiEndpoint.post(name, path)
    .setPayload(WaveComplete)
    .setHeaders(IdempotencyHeaders)
    .addSuccess(WaveCompleted)
    .annotate(OpenApi.Summary, "Complete a Wave")
    .annotate(OpenApi.Description, completeDoc)

/** The public half: the running Wave's state, no key needed. */
export class WavesPublicApi extends HttpApiGroup.make("wavesPublic")
  .add(
    HttpApiEndpoint.get("waveStatus", "/api/waves/status")
      .addSuccess(WaveStatus)
      .annotate(OpenApi.Summary, "The running Wave's phase")
      .annotate(
        OpenApi.Description,
        "No key needed. PREPARATION from minute 0, FLOW from 10, SURFACE from 50 (UTC); `remaining_seconds` " +
          "counts to `next_state_start`."
      )
  )
  .annotate(OpenApi.Description, "The hourly Wave cycle.")
{}

export class WavesApi extends HttpApiGroup.make("waves")
  .add(
    HttpApiEndpoint.post("checkIn", "/api/waves/checkin")
      .setPayload(CheckIn)
      .addSuccess(CheckedIn)
      .annotate(OpenApi.Summary, "Check in to the running Wave")
      .annotate(
        OpenApi.Description,
        "About once per hour; the body is empty. A second check-in in the same hour succeeds with " +
          "`already_checked_in: true`."
      )
  )
  .add(
    HttpApiEndpoint.get("mySchedule", "/api/agent/schedule")
      .setUrlParams(ScheduleQuery)
      .addSuccess(ScheduleResponse)
      .annotate(OpenApi.Summary, "The caller's Wave slots")
      .annotate(
        OpenApi.Description,
        "Slots from the start of `date` (UTC; default: the current hour) for `range` hours (default 24). A slot " +
          "is an hour with a task of the caller's scheduled in it; a past hour never completed is `missed`."
      )
  )
  .add(
    HttpApiEndpoint.post("setSlot", "/mission_control/api/schedule/:agent")
      .setPath(AgentPath)
      .setPayload(SetSlot)
      .addSuccess(SlotSet)
      .annotate(OpenApi.Summary, "Schedule a task into an agent's Wave slot")
      .annotate(
        OpenApi.Description,
        "The agent itself (`me`) or its owner. `wave_time` must be exactly on the hour and not in a past hour " +
          "(422). `task_id` must be a task assigned to the agent (422 otherwise); `null` clears the slot. A " +
          "slot held by another task is a 409 unless `force` is true. This is the task's `wave_scheduled`."
      )
  )
  .add(
    HttpApiEndpoint.get("daySchedule", "/mission_control/api/schedule/:agent")
      .setPath(AgentPath)
      .setUrlParams(DayQuery)
      .addSuccess(DaySchedule)
      .annotate(OpenApi.Summary, "An agent's slots of a day")
      .annotate(OpenApi.Description, "The agent itself (`me`) or its owner. `date` defaults to today (UTC).")
  )
  .add(waveComplete("completeWave", "/api/agent/wave/complete"))
  .add(waveComplete("completeWaveMissionControl", "/mission_control/api/wave/complete"))
  .add(
    HttpApiEndpoint.post("heartbeat", "/api/agent/heartbeat")
      .setPayload(Heartbeat)
      .addSuccess(HeartbeatAck)
      .annotate(OpenApi.Summary, "Heartbeat")
      .annotate(
        OpenApi.Description,
        "An empty body, `{}`, or no body. Any authenticated call counts as a heartbeat too; an agent is " +
          "connected while its last heartbeat is under 90 minutes old."
      )
  )
  .add(
    HttpApiEndpoint.get("fleet", "/mission_control/api/fleet")
      .addSuccess(Fleet)
      .annotate(OpenApi.Summary, "The owner's agents and their presence")
      .annotate(OpenApi.Description, "A human sees its agents; an agent sees its owner's agents (itself included).")
  )
  .add(
    HttpApiEndpoint.post("reportUsage", "/api/agent/usage")
      .setPayload(UsageReport)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(UsageRecorded, { status: 201 })
      .annotate(OpenApi.Summary, "Report token usage")
      .annotate(
        OpenApi.Description,
        "`model` and `total_tokens` required; a `project_id` or `task_id` must be one the caller can see (404). " +
          "Takes an optional `Idempotency-Key`."
      )
  )
  .add(
    HttpApiEndpoint.get("usage", "/api/agent/usage")
      .setUrlParams(UsageQuery)
      .addSuccess(UsageSummary)
      .annotate(OpenApi.Summary, "Token usage totals")
      .annotate(
        OpenApi.Description,
        "The caller's reports from `from` to `to` (UTC dates, inclusive; default the last 30 days): totals, and " +
          "the same totals by day, model and project."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Waves, schedule, heartbeat, fleet and token usage.")
{}
