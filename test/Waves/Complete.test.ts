import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { failure, humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"
import { agentWithTask, HOUR, hourIso } from "./support.js"

const currentHour = () => Math.floor(Date.now() / HOUR) * HOUR
const waveIdOf = (hour: number, handle: string) =>
  new Date(hour).toISOString().slice(0, 13).replace(/[-T]/g, "") + handle

/** A task the human created in its project, assigned to its agent, scheduled in the current hour. */
const scheduledNow = Effect.gen(function*() {
  const { agent, human } = yield* humanWithAgent
  const project = yield* newProject(human.client)
  const created = yield* human.client.tasks.createTask({
    path: { project_id: project.id },
    payload: { title: "this hour's work", assigned_to: agent.agent.handle, wave_scheduled: hourIso(currentHour()) },
    headers: {}
  })
  return { agent, human, project, task: created.task }
})

describeApp()("wave complete", (it) => {
  it.effect("without wave_id: the active wave; status, comment and slot in one answer", () =>
    Effect.gen(function*() {
      const { agent, human, task } = yield* scheduledNow
      const done = yield* agent.client.waves.completeWave({
        payload: { task_status: "review", comment: "first pass done" },
        headers: {}
      })
      expect(done).toMatchObject({
        status: "success",
        wave_id: waveIdOf(currentHour(), agent.agent.handle),
        task_id: task.id
      })
      expect(done.comment_id).not.toBeNull()
      // the task's owner (the human who owns the agent) has the agent's DM, delivered at once
      expect(done.message_id).not.toBeNull()
      const inbox = yield* human.client.messages.listMessages({ urlParams: {} })
      const dm = inbox.messages.find((m) => m.id === done.message_id)
      expect(dm?.sender_handle).toBe(agent.agent.handle)
      expect(dm?.content).toContain(done.wave_id)
      expect(dm?.content).toContain("first pass done")
      const read = yield* agent.client.tasks.getTask({ path: { task_id: task.id } })
      expect(read.task.status).toBe("review")
      expect(read.task.comments.map((c) => [c.id, c.content])).toEqual([[done.comment_id, "first pass done"]])
      const slot = (yield* agent.client.waves.mySchedule({ urlParams: {} })).schedule[0]!
      expect(slot).toMatchObject({ wave_id: done.wave_id, status: "completed", is_missed: false })

      // a second completion of the same wave is a conflict and writes nothing
      const again = yield* failure(agent.client.waves.completeWave({
        payload: { comment: "again" },
        headers: {}
      }))
      expect(again._tag).toBe("Conflict")
      expect((yield* agent.client.tasks.getTask({ path: { task_id: task.id } })).task.comments).toHaveLength(1)
    }))

  it.effect("task_status completed completes the task; the mission-control path answers the same", () =>
    Effect.gen(function*() {
      const { agent, task } = yield* scheduledNow
      const done = yield* agent.client.waves.completeWaveMissionControl({
        payload: {
          wave_id: waveIdOf(currentHour(), agent.agent.handle),
          task_status: "completed",
          notify_owner: false
        },
        headers: {}
      })
      expect(done).toMatchObject({ task_id: task.id, comment_id: null, message_id: null })
      const read = yield* agent.client.tasks.getTask({ path: { task_id: task.id } })
      expect(read.task.status).toBe("completed")
      expect(read.task.completed_at).not.toBeNull()
    }))

  it.effect("an empty body, {} and a JSON type with no body all complete the active wave", () =>
    Effect.gen(function*() {
      for (const options of [{}, { body: "{}" }, { body: "" }]) {
        const { agent, task } = yield* scheduledNow
        const r = yield* rawRequest("POST", "/api/agent/wave/complete", { key: agent.api_key, ...options })
        expect(r.status).toBe(200)
        expect(r.body).toMatchObject({ task_id: task.id, comment_id: null })
      }
    }))

  it.effect("a failing part rolls the whole completion back", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const project = yield* newProject(human.client, { visibility: "public" })
      const task = (yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "public work", assigned_to: agent.agent.handle, wave_scheduled: hourIso(currentHour()) },
        headers: {}
      })).task
      // the agent stops taking part (no API removes a member yet): it still sees the task, may no longer change it
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM project_members WHERE project_id = ${project.id} AND user_id = ${agent.agent.id}`
      const r = yield* rawRequest("POST", "/api/agent/wave/complete", {
        key: agent.api_key,
        body: JSON.stringify({ task_status: "in_progress", comment: "should not stay" })
      })
      expectError(r, 403, "forbidden")
      const read = yield* human.client.tasks.getTask({ path: { task_id: task.id } })
      expect(read.task.status).toBe("pending")
      expect(read.task.comments).toEqual([])
      // the slot was marked completed first in the same transaction: rolled back with the rest
      const slots = yield* human.client.waves.daySchedule({ path: { agent: agent.agent.handle }, urlParams: {} })
      expect(slots.schedule.find((s) => s.task?.id === task.id)?.status).toBe("scheduled")
    }))

  it.effect("no active wave is a 404; another agent's wave a 403; a future one a 422; a malformed id a 400", () =>
    Effect.gen(function*() {
      const { agent } = yield* agentWithTask
      expect((yield* failure(agent.client.waves.completeWave({ payload: {}, headers: {} })))._tag).toBe("NotFound")
      const other = yield* rawRequest("POST", "/api/agent/wave/complete", {
        key: agent.api_key,
        body: JSON.stringify({ wave_id: waveIdOf(currentHour(), "someone-else") })
      })
      expectError(other, 403, "forbidden")
      const future = yield* rawRequest("POST", "/api/agent/wave/complete", {
        key: agent.api_key,
        body: JSON.stringify({ wave_id: waveIdOf(currentHour() + 2 * HOUR, agent.agent.handle) })
      })
      expectError(future, 422, "unprocessable")
      const malformed = yield* rawRequest("POST", "/api/agent/wave/complete", {
        key: agent.api_key,
        body: JSON.stringify({ wave_id: "2026133199" + agent.agent.handle })
      })
      expectError(malformed, 400, "invalid_request")
      const badStatus = yield* rawRequest("POST", "/api/agent/wave/complete", {
        key: agent.api_key,
        body: JSON.stringify({ task_status: "cancelled" })
      })
      expectError(badStatus, 400, "invalid_request")
    }))

  it.effect("a named past wave with nothing scheduled completes with no task; a comment then needs one (422)", () =>
    Effect.gen(function*() {
      const { agent } = yield* agentWithTask
      const id = waveIdOf(currentHour() - HOUR, agent.agent.handle)
      const withComment = yield* rawRequest("POST", "/api/agent/wave/complete", {
        key: agent.api_key,
        body: JSON.stringify({ wave_id: id, comment: "notes" })
      })
      expectError(withComment, 422, "unprocessable")
      const done = yield* agent.client.waves.completeWave({ payload: { wave_id: id }, headers: {} })
      expect(done).toEqual({ status: "success", wave_id: id, task_id: null, comment_id: null, message_id: null })
    }))

  it.effect("an Idempotency-Key replays the first answer", () =>
    Effect.gen(function*() {
      const { agent } = yield* scheduledNow
      const headers = { "idempotency-key": `wc-${agent.agent.handle}` }
      const body = JSON.stringify({ comment: "once" })
      const first = yield* rawRequest("POST", "/api/agent/wave/complete", { key: agent.api_key, body, headers })
      const second = yield* rawRequest("POST", "/api/agent/wave/complete", { key: agent.api_key, body, headers })
      expect(first.status).toBe(200)
      expect(second.status).toBe(200)
      expect(second.headers["idempotent-replayed"]).toBe("true")
      expect(second.body).toEqual(first.body)
    }))
})
