import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { failure, humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { createAgent, describeApp, signUp } from "../support/TestApp.js"
import { agentWithTask, HOUR, hourIso, newTask } from "./support.js"

const nextHour = (n = 1) => Math.floor(Date.now() / HOUR) * HOUR + n * HOUR
const waveIdOf = (hour: number, handle: string) =>
  new Date(hour).toISOString().slice(0, 13).replace(/[-T]/g, "") + handle

describeApp()("schedule", (it) => {
  it.effect("a slot set by the agent is the task's wave_scheduled, shown in the schedule with the wave id", () =>
    Effect.gen(function*() {
      const { agent, task } = yield* agentWithTask
      const hour = nextHour(3)
      const set = yield* agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(hour), task_id: task.id }
      })
      expect(set).toEqual({
        status: "success",
        wave_id: waveIdOf(hour, agent.agent.handle),
        wave_time: hourIso(hour),
        task_id: task.id,
        replaced_task_id: null
      })
      expect(set.wave_id).toMatch(/^\d{10}[a-z0-9_-]+$/)
      const read = yield* agent.client.tasks.getTask({ path: { task_id: task.id } })
      expect(read.task.wave_scheduled).toBe(hourIso(hour))
      const mine = yield* agent.client.waves.mySchedule({ urlParams: {} })
      expect(mine.schedule).toEqual([{
        wave_id: set.wave_id,
        time: hourIso(hour),
        status: "scheduled",
        is_missed: false,
        task: { id: task.id, title: task.title, project_id: task.project_id }
      }])
      expect(mine.start_time).toBe(hourIso(nextHour(0)))
      expect(mine.end_time).toBe(hourIso(nextHour(24)))
      // the agent heard of it
      const events = yield* rawRequest("GET", "/api/agent/events?limit=500", { key: agent.api_key })
      expect(events.body.events.filter((e: any) => e.type === "wave.scheduled").map((e: any) => e.data.wave_id))
        .toContain(set.wave_id)
    }))

  it.effect("task create and reschedule use the same slots", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const project = yield* newProject(agent.client)
      const hour = nextHour(5)
      const created = yield* agent.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "born scheduled", assigned_to: "me", wave_scheduled: hourIso(hour + 17 * 60_000) },
        headers: {}
      })
      const schedule = () =>
        Effect.map(agent.client.waves.mySchedule({ urlParams: { range: 48 } }), (r) =>
          r.schedule.map((s) => [s.time, s.task?.id]))
      expect(yield* schedule()).toEqual([[hourIso(hour), created.task.id]])
      yield* agent.client.tasks.rescheduleTask({
        path: { task_id: created.task.id },
        payload: { wave_time: hourIso(hour, 2) }
      })
      expect(yield* schedule()).toEqual([[hourIso(hour, 2), created.task.id]])
    }))

  it.effect("wave_time off the hour or in a past hour is a 422; nothing is written", () =>
    Effect.gen(function*() {
      const { agent, task } = yield* agentWithTask
      const off = yield* rawRequest("POST", "/mission_control/api/schedule/me", {
        key: agent.api_key,
        body: JSON.stringify({ wave_time: new Date(nextHour(2) + 30 * 60_000).toISOString(), task_id: task.id })
      })
      expectError(off, 422, "unprocessable")
      const past = yield* failure(agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(nextHour(-2)), task_id: task.id }
      }))
      expect(past._tag).toBe("Unprocessable")
      const read = yield* agent.client.tasks.getTask({ path: { task_id: task.id } })
      expect(read.task.wave_scheduled).toBeNull()
    }))

  it.effect("a slot held by another task is a 409 without force; force takes it; null clears it", () =>
    Effect.gen(function*() {
      const { agent, project, task } = yield* agentWithTask
      const other = yield* newTask(agent, project.id, "the other one")
      const hour = hourIso(nextHour(4))
      yield* agent.client.waves.setSlot({ path: { agent: "me" }, payload: { wave_time: hour, task_id: task.id } })
      const taken = yield* failure(agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hour, task_id: other.id }
      }))
      expect(taken._tag).toBe("Conflict")
      // setting the same task again is no conflict
      yield* agent.client.waves.setSlot({ path: { agent: "me" }, payload: { wave_time: hour, task_id: task.id } })
      const forced = yield* agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hour, task_id: other.id, force: true }
      })
      expect(forced.replaced_task_id).toBe(task.id)
      expect((yield* agent.client.tasks.getTask({ path: { task_id: task.id } })).task.wave_scheduled).toBeNull()
      expect((yield* agent.client.tasks.getTask({ path: { task_id: other.id } })).task.wave_scheduled).toBe(hour)

      const cleared = yield* agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hour, task_id: null }
      })
      expect(cleared).toMatchObject({ task_id: null, replaced_task_id: other.id })
      expect((yield* agent.client.waves.mySchedule({ urlParams: {} })).schedule).toEqual([])
    }))

  it.effect("the owner schedules its agent by handle or id and reads the day; others cannot", () =>
    Effect.gen(function*() {
      const { agent, human, task } = yield* agentWithTask
      const hour = nextHour(2)
      const byHandle = yield* human.client.waves.setSlot({
        path: { agent: agent.agent.handle.toUpperCase() },
        payload: { wave_time: hourIso(hour), task_id: task.id }
      })
      expect(byHandle.wave_id).toBe(waveIdOf(hour, agent.agent.handle))
      const day = yield* human.client.waves.daySchedule({
        path: { agent: agent.agent.id },
        urlParams: { date: hourIso(hour).slice(0, 10) }
      })
      expect(day).toMatchObject({ agent_id: agent.agent.id, handle: agent.agent.handle })
      expect(day.schedule.map((s) => [s.time, s.is_missed, s.task?.id])).toEqual([[hourIso(hour), false, task.id]])

      const stranger = yield* signUp()
      expect(
        (yield* failure(stranger.client.waves.daySchedule({ path: { agent: agent.agent.handle }, urlParams: {} })))._tag
      )
        .toBe("Forbidden")
      expect(
        (yield* failure(stranger.client.waves.setSlot({
          path: { agent: agent.agent.handle },
          payload: { wave_time: hourIso(hour), task_id: null }
        })))._tag
      ).toBe("Forbidden")
      expect((yield* failure(human.client.waves.daySchedule({ path: { agent: "nobody-here" }, urlParams: {} })))._tag)
        .toBe("NotFound")
      // another agent of the same owner cannot take the task into its own slots
      const sibling = yield* createAgent(human.api_key)
      const notTheirs = yield* failure(sibling.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(hour), task_id: task.id }
      }))
      expect(notTheirs._tag).toBe("NotFound")
    }))

  it.effect("a task not assigned to the agent is a 422; an unknown task a 404; bad input a 400", () =>
    Effect.gen(function*() {
      const { agent, human, project } = yield* agentWithTask
      const unassigned = yield* agent.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "nobody's" },
        headers: {}
      })
      const r = yield* failure(human.client.waves.setSlot({
        path: { agent: agent.agent.handle },
        payload: { wave_time: hourIso(nextHour(2)), task_id: unassigned.task.id }
      }))
      expect(r._tag).toBe("Unprocessable")
      const missing = yield* failure(agent.client.waves.setSlot({
        path: { agent: "me" },
        payload: { wave_time: hourIso(nextHour(2)), task_id: "00000000-0000-4000-8000-000000000000" as any }
      }))
      expect(missing._tag).toBe("NotFound")
      const bad = yield* rawRequest("POST", "/mission_control/api/schedule/me", {
        key: agent.api_key,
        body: JSON.stringify({ wave_time: "tomorrow", task_id: null })
      })
      expectError(bad, 400, "invalid_request")
      const range = yield* rawRequest("GET", "/api/agent/schedule?range=0", { key: agent.api_key })
      expectError(range, 400, "invalid_request")
      const date = yield* rawRequest("GET", "/api/agent/schedule?date=2026-02-30", { key: agent.api_key })
      expectError(date, 400, "invalid_request")
    }))

  it.effect("check-in: the first of the hour, then a second that says so", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const first = yield* rawRequest("POST", "/api/waves/checkin", { key: agent.api_key })
      expect(first.status).toBe(200)
      expect(first.body).toMatchObject({ status: "success", already_checked_in: false })
      expect(first.body.wave_id).toBe(waveIdOf(nextHour(0), agent.agent.handle))
      const second = yield* agent.client.waves.checkIn({ payload: {} })
      expect(second.already_checked_in).toBe(true)
      expect(second.checked_in_at).toBe(first.body.checked_in_at)
      expect(second.message).toMatch(/already checked in/)
      expectError(yield* rawRequest("POST", "/api/waves/checkin"), 401, "unauthorized")
    }))

  it.effect("wave status is public", () =>
    Effect.gen(function*() {
      const r = yield* rawRequest("GET", "/api/waves/status")
      expect(r.status).toBe(200)
      expect(["PREPARATION", "FLOW", "SURFACE"]).toContain(r.body.state)
      expect(Date.parse(r.body.next_state_start) - Date.parse(r.body.server_time)).toBeCloseTo(
        r.body.remaining_seconds * 1000,
        -4
      )
    }))
})
