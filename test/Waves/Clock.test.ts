import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { rawRequest } from "../support/Raw.js"
import { RealtimeApp } from "../support/Realtime.js"
import {
  agentWithTask,
  eventsOf,
  freshHour,
  hourIso,
  MINUTE,
  newTask,
  settle,
  startClock,
  stopClock,
  untilEvents
} from "./support.js"

const waveId = (hour: number, handle: string) => {
  const iso = new Date(hour).toISOString()
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${handle}`
}

const status = Effect.map(rawRequest("GET", "/api/waves/status"), (r) => r.body)

// the whole app runs on TestClock; the Wave clock fibers are started by the tests themselves (the app's own is off)
layer(RealtimeApp({
  HEARTBEAT_FLUSH_INTERVAL: "1 minute",
  WS_PING_INTERVAL: "10 minutes",
  PRESENCE_SWEEP_INTERVAL: "1 minute",
  EVENT_POLL_INTERVAL: "10 minutes",
  WEBHOOK_WORKER: "false"
}))("wave clock", (it) => {
  it.effect("a full hour walks PREPARATION → FLOW → SURFACE → PREPARATION, to connected agents", () =>
    Effect.gen(function*() {
      const hour = yield* freshHour(5 * MINUTE)
      const { agent } = yield* agentWithTask
      const key = agent.api_key
      const handle = agent.agent.handle
      // the agent's calls made it connected
      yield* untilEvents(key, "presence.changed", 1)
      const clock = yield* startClock
      yield* settle

      expect(yield* status).toEqual({
        status: "success",
        state: "PREPARATION",
        server_time: hourIso(hour + 5 * MINUTE),
        remaining_seconds: 300,
        next_state_start: hourIso(hour + 10 * MINUTE),
        wave_time: hourIso(hour)
      })

      yield* TestClock.adjust("5 minutes")
      const flow = yield* untilEvents(key, "wave.phase", 2)
      expect(flow.at(-1)).toEqual({
        wave_id: waveId(hour, handle),
        state: "FLOW",
        next_state_start: hourIso(hour + 50 * MINUTE)
      })
      expect(yield* status).toMatchObject({ state: "FLOW", remaining_seconds: 2400 })

      yield* TestClock.adjust("39 minutes")
      expect(yield* status).toMatchObject({ state: "FLOW", remaining_seconds: 60 })
      yield* TestClock.adjust("1 minute")
      const surface = yield* untilEvents(key, "wave.phase", 3)
      expect(surface.at(-1)).toEqual({
        wave_id: waveId(hour, handle),
        state: "SURFACE",
        next_state_start: hourIso(hour, 1)
      })
      expect(yield* status).toMatchObject({ state: "SURFACE", remaining_seconds: 600 })

      yield* TestClock.adjust("10 minutes")
      const next = yield* untilEvents(key, "wave.phase", 4)
      expect(next.at(-1)).toEqual({
        wave_id: waveId(hour + 60 * MINUTE, handle),
        state: "PREPARATION",
        next_state_start: hourIso(hour + 70 * MINUTE)
      })
      expect(yield* status).toMatchObject({
        state: "PREPARATION",
        remaining_seconds: 600,
        wave_time: hourIso(hour, 1)
      })
      // the first one was the boundary the clock started in (it catches up on the phase it finds)
      expect((yield* eventsOf(key, "wave.phase")).map((e) => e.state)).toEqual([
        "PREPARATION",
        "FLOW",
        "SURFACE",
        "PREPARATION"
      ])
      yield* stopClock(clock)
    }))

  it.effect("wave.started reaches a scheduled agent once; an uncompleted slot becomes missed", () =>
    Effect.gen(function*() {
      const hour = yield* freshHour(30 * MINUTE)
      const { agent, project, task } = yield* agentWithTask
      const second = yield* newTask(agent, project.id, "next hour's work")
      const key = agent.api_key
      const handle = agent.agent.handle
      yield* agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(hour, 1), task_id: task.id }
      })
      yield* agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(hour, 2), task_id: second.id }
      })
      const clock = yield* startClock
      yield* settle
      expect(yield* eventsOf(key, "wave.started")).toEqual([])

      yield* TestClock.adjust("30 minutes")
      expect(yield* untilEvents(key, "wave.started", 1)).toEqual([{
        task_id: task.id,
        task_title: "wave work",
        wave_id: waveId(hour + 60 * MINUTE, handle),
        wave_time: hourIso(hour, 1)
      }])
      // the rest of that hour's boundaries send phases, never a second start
      yield* TestClock.adjust("10 minutes")
      yield* untilEvents(key, "wave.phase", 3)
      yield* TestClock.adjust("40 minutes")
      yield* untilEvents(key, "wave.phase", 4)
      expect(yield* eventsOf(key, "wave.started")).toHaveLength(1)

      // the next hour: the first slot was never completed
      yield* TestClock.adjust("10 minutes")
      const started = yield* untilEvents(key, "wave.started", 2)
      expect(started.map((e) => e.task_id)).toEqual([task.id, second.id])
      const day = yield* agent.client.waves.mySchedule({
        urlParams: { date: hourIso(hour, 1).slice(0, 10), range: 48 }
      })
      const first = day.schedule.find((s) => s.time === hourIso(hour, 1))!
      expect(first).toMatchObject({ status: "missed", is_missed: true, task: { id: task.id } })
      const current = day.schedule.find((s) => s.time === hourIso(hour, 2))!
      expect(current).toMatchObject({ status: "scheduled", is_missed: false, task: { id: second.id } })
      yield* stopClock(clock)
    }))

  it.effect("two clock fibers over one database emit each event once", () =>
    Effect.gen(function*() {
      const hour = yield* freshHour(45 * MINUTE)
      const { agent, task } = yield* agentWithTask
      const key = agent.api_key
      yield* agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(hour, 1), task_id: task.id }
      })
      yield* untilEvents(key, "presence.changed", 1)
      const a = yield* startClock
      const b = yield* startClock
      yield* settle
      yield* TestClock.adjust("5 minutes")
      yield* settle
      yield* TestClock.adjust("10 minutes")
      yield* untilEvents(key, "wave.started", 1)
      yield* TestClock.adjust("10 minutes")
      yield* untilEvents(key, "wave.phase", 4)
      yield* settle
      expect(yield* eventsOf(key, "wave.started")).toHaveLength(1)
      // FLOW (the phase they started in), SURFACE, PREPARATION, FLOW: one each
      expect((yield* eventsOf(key, "wave.phase")).map((e) => e.state)).toEqual([
        "FLOW",
        "SURFACE",
        "PREPARATION",
        "FLOW"
      ])
      yield* stopClock(a)
      yield* stopClock(b)
    }))

  it.effect("a clock restarted across an hour boundary catches up: marks the missed hour and starts the next once", () =>
    Effect.gen(function*() {
      const hour = yield* freshHour(20 * MINUTE)
      const { agent, project, task } = yield* agentWithTask
      const later = yield* newTask(agent, project.id, "after the restart")
      const key = agent.api_key
      yield* agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(hour, 1), task_id: task.id }
      })
      yield* agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(hour, 2), task_id: later.id }
      })
      const before = yield* startClock
      yield* settle
      yield* stopClock(before)

      // down through the whole of the first slot's hour
      yield* TestClock.adjust("120 minutes")
      yield* settle
      expect(yield* eventsOf(key, "wave.started")).toEqual([])

      const after = yield* startClock
      const started = yield* untilEvents(key, "wave.started", 1)
      expect(started.map((e) => e.task_id)).toEqual([later.id])
      const slots = yield* agent.client.waves.daySchedule({
        path: { agent: "me" },
        urlParams: { date: hourIso(hour, 1).slice(0, 10) }
      })
      expect(slots.schedule.find((s) => s.time === hourIso(hour, 1))).toMatchObject({ status: "missed" })

      // a second restart in the same hour does nothing again
      yield* stopClock(after)
      const again = yield* startClock
      yield* settle
      expect(yield* eventsOf(key, "wave.started")).toHaveLength(1)
      yield* stopClock(again)
    }))
})
