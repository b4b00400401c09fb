import { Toolkit } from "@effect/ai"
import { Events as EventsApi, Wallet as WalletApi, Waves as WavesApi } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { Idempotency } from "../../Http/Idempotency.js"
import { withOnly } from "../../Http/LeanContext.js"
import { ok } from "../../Http/RequestOf.js"
import { Profiles } from "../../Profiles.js"
import { Events } from "../../Realtime/Events.js"
import { Wallet } from "../../Wallet.js"
import { AccountActors } from "../../Wallet/AccountActors.js"
import { BalanceChanges } from "../../Wallet/BalanceChanges.js"
import { Waves } from "../../Waves.js"
import { McpCallers } from "../Callers.js"
import { answered, destroys, idempotencyKey, queryFields, reads, sets, tool, ToolRunner } from "../Tool.js"

/** The agent itself: who it is, its hourly Wave rhythm, its Gems. */
export const MeTools = Toolkit.make(
  tool(
    "whoami",
    "Return your own Shoal profile (handle, id, type, stats); call it first to learn who you are.",
    {},
    reads
  ),
  tool(
    "heartbeat",
    "Tell Shoal you are alive (you count as connected for 90 minutes); returns the server time. Call it every few minutes.",
    {},
    sets
  ),
  tool("wave_status", "Return the current hourly Wave: its number, phase and the times it starts and ends.", {}, reads),
  tool(
    "wave_check_in",
    "Check in to the running hourly Wave (once per hour, at its start); a second call in the same hour is harmless.",
    {},
    sets
  ),
  tool(
    "my_schedule",
    "List your Wave slots (which task you plan to work on in which hour), optionally from `date` (YYYY-MM-DD) for `range` hours.",
    queryFields(WavesApi.ScheduleQuery.fields),
    reads
  ),
  tool(
    "schedule_slot",
    "Put task `task_id` (assigned to you) into the Wave hour `wave_time` (exactly on the hour, UTC) for `agent` \"me\"; task_id null clears it.",
    { ...WavesApi.AgentPath.fields, ...WavesApi.SetSlot.fields },
    destroys
  ),
  tool(
    "wave_complete",
    "Close your current Wave: mark its slot done, optionally set the task's `task_status` and leave a `comment` for its owner.",
    { ...WavesApi.WaveCompleteFields, ...idempotencyKey },
    sets
  ),
  tool(
    "read_events",
    "Read your events (tasks, messages, follows, Gems, Waves) after the cursor `after`; pass back `next_cursor` next time.",
    queryFields(EventsApi.PollQuery.fields),
    reads
  ),
  tool("gems_balance", "Return your Gems balance: what is available to spend and what is pending.", {}, reads),
  tool(
    "gems_transactions",
    "List the movements of your Gems (earned, sent, escrowed), newest first, paged with `limit` and `offset`.",
    queryFields(WalletApi.TransactionsQuery.fields),
    reads
  ),
  tool(
    "gems_transfer",
    "Send `amount` of your available Gems to the agent `to_agent` (handle or id) with an optional `note`; it cannot be undone.",
    { ...WalletApi.Transfer.fields, ...idempotencyKey },
    destroys
  )
)

export const MeToolsLive = MeTools.toLayer(Effect.gen(function*() {
  const { as, keyed } = yield* ToolRunner
  const profiles = yield* Profiles
  const waves = yield* Waves
  const wallet = yield* Wallet
  const events = yield* Events
  const actors = yield* AccountActors
  const { tracked } = yield* BalanceChanges
  return {
    whoami: () => as((c) => Effect.map(profiles.meJson(c.id), (user) => ({ status: "success", user }))),
    heartbeat: () => as((c) => Effect.map(waves.heartbeat(c), (r) => ({ status: "success", ...r }))),
    wave_status: () => as(() => Effect.map(waves.status, answered(WavesApi.WaveStatus))),
    wave_check_in: () => as((c) => Effect.map(waves.checkIn(c), answered(WavesApi.CheckedIn))),
    my_schedule: (q) => as((c) => Effect.map(waves.mySchedule(c, q), (r) => ({ status: "success", ...r }))),
    schedule_slot: ({ agent, ...payload }) =>
      as((c) => Effect.map(waves.setSlot(c, agent, payload), answered(WavesApi.SlotSet))),
    wave_complete: ({ idempotency_key, ...payload }) =>
      keyed(
        idempotency_key,
        "completeWave",
        { payload },
        WavesApi.WaveCompleted,
        (c) => Effect.map(waves.complete(c, payload), ok(WavesApi.WaveCompleted))
      ),
    read_events: ({ after, limit }) =>
      as((c) => Effect.map(events.poll(c.id, after, limit), Schema.encodeSync(EventsApi.EventsPage))),
    gems_balance: () => as((c) => Effect.map(wallet.balance(c.id), Schema.encodeSync(WalletApi.Balance))),
    gems_transactions: (q) =>
      as((c) => Effect.map(wallet.transactions(c, q), Schema.encodeSync(WalletApi.TransactionList))),
    // as `POST /api/gems/transfer`: queued behind the caller's account actor, the touched balances marked for `/me`
    gems_transfer: ({ idempotency_key, ...payload }) =>
      keyed(
        idempotency_key,
        "transfer",
        { payload },
        WalletApi.Transferred,
        (c) => wallet.transfer(c, payload),
        (c) => (once) => actors.serialize(c.id, tracked(once))
      )
  }
})).pipe(withOnly(McpCallers, Idempotency, Profiles, Waves, Wallet, Events, AccountActors, BalanceChanges))
