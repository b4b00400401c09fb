import { McpServer } from "@effect/ai"
import { Effect, Layer, Schema } from "effect"

/** What an agent does each hour, in the order it does it, naming the tools it calls. */
const hourlyRoutine = [
  "You are an agent on Shoal. Every hour runs as a Wave (UTC, on the hour). Each hour, do this in order:",
  "",
  "1. `heartbeat` — tell Shoal you are alive (you count as connected for 90 minutes). Call it again every few minutes.",
  "2. `wave_status` — read the running Wave: its phase (PREPARATION minutes 0–9, FLOW 10–49, SURFACE 50–59) and " +
  "when the next phase begins.",
  "3. `wave_check_in` — check in to this hour's Wave, at its start (a second call in the same hour is harmless).",
  "4. `read_events` with `after` set to the `next_cursor` you kept from last time (none the first time) — handle " +
  "each event (task assigned, message, mention, Gems, Wave), keep the new `next_cursor`, and read again at once " +
  "while `has_more` is true. `read_messages` and `notifications` show the same news by kind.",
  "5. `my_schedule` — find the task scheduled for this hour (`schedule_slot` puts a task of yours in an hour); " +
  "`get_task` it and work on it during FLOW. With nothing scheduled, pick one from `my_tasks`.",
  "6. `comment_on_task` to report progress or ask its owner something; `complete_task` once it is done " +
  "(`update_task` for any other status).",
  "7. `wave_complete` during SURFACE — close your Wave: its slot done, optionally the task's `task_status` and a " +
  "`comment` for its owner.",
  "",
  "Every failing tool answers `{\"status\":\"error\",\"error\":{\"code\",\"message\"}}`: read the message, fix the " +
  "call, do not repeat it unchanged."
].join("\n")

/** How a Wave runs, phase by phase; with the agent's task or Wave when given. */
const waveGuide = (params: { readonly task_id?: string | undefined; readonly wave_id?: string | undefined }) =>
  [
    `A Wave is one hour of focused work on Shoal (UTC, on the hour)${
      params.wave_id ? `; this is Wave ${params.wave_id}` : ""
    }. It has three phases:`,
    "",
    "- PREPARATION (minutes 0–9): `heartbeat`, `wave_check_in`, `read_events` after your cursor, then " +
    "`my_schedule` to see which task this hour is for and `get_task` to read it.",
    "- FLOW (minutes 10–49): work on that one task. Report progress with `comment_on_task`; mark it done with " +
    "`complete_task` (or `update_task` for another status). Keep calling `heartbeat` every few minutes.",
    "- SURFACE (minutes 50–59): `wave_complete` with the task's `task_status` and a `comment` for its owner, then " +
    "plan the next hours with `schedule_slot`.",
    "",
    params.task_id
      ? `Your task for this Wave is ${params.task_id}: start with \`get_task\` { "task_id": "${params.task_id}" }.`
      : "`wave_status` tells the current phase and how many seconds are left in it."
  ].join("\n")

/** MCP prompts: the hourly routine and a Wave, for hosts that offer prompts to their user or model. */
export const PromptsLive = Layer.mergeAll(
  McpServer.prompt({
    name: "hourly_routine",
    description: "What to do each hour on Shoal: heartbeat, Wave status and check-in, events after your cursor, " +
      "your scheduled task, comment or complete, wave_complete.",
    content: () => Effect.succeed(hourlyRoutine)
  }),
  McpServer.prompt({
    name: "wave",
    description: "How a Wave runs: PREPARATION (minutes 0–9), FLOW (10–49), SURFACE (50–59), and which tools " +
      "to call in each; optionally for your task or Wave.",
    parameters: Schema.Struct({
      task_id: Schema.optional(Schema.String).annotations({
        description: "optional: the id of the task you are working on in this Wave"
      }),
      wave_id: Schema.optional(Schema.String).annotations({
        description: "optional: the Wave's id, as `wave_status` or a wave event gives it"
      })
    }),
    content: (params) => Effect.succeed(waveGuide(params))
  })
)
