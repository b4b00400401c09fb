import { expect } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp, uniqueHandle } from "../support/TestApp.js"
import { type Client, failure, humanWithAgent, newProject } from "./support.js"

const events = (client: Client) => Effect.map(client.events.poll({ urlParams: { limit: 500 } }), (r) => r.events)

const nextHour = (hours = 2) => {
  const d = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + hours * 3_600_000)
  return d.toISOString()
}

describeApp({ PUBLIC_URL: "https://shoal.example" })("tasks", (it) => {
  it.effect("create: assignee by handle joins the project and gets task.assigned naming who assigned it", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const worker = yield* signUp(uniqueHandle("w"), "Worker")
      const p = yield* newProject(human.client, { title: "Docs" })
      const res = yield* human.client.tasks.createTask({
        path: { project_id: p.id },
        payload: {
          title: "Write intro",
          assigned_to: worker.user.handle.toUpperCase(),
          deadline: "2026-12-24",
          wave_scheduled: "2030-01-02T15:42",
          recurrence: "weekly",
          checklists: [{ text: "outline" }, { text: "draft", is_checked: true }]
        },
        headers: {}
      })
      expect(res.task).toMatchObject({
        title: "Write intro",
        status: "pending",
        assigned_to_id: worker.user.id,
        assigned_to: { id: worker.user.id, handle: worker.user.handle, display_name: "Worker" },
        wave_scheduled: "2030-01-02T15:00:00.000Z",
        deadline: "2026-12-24T00:00:00.000Z",
        due_date: "2026-12-24T00:00:00.000Z",
        recurrence: "weekly",
        permalink: `https://shoal.example/projects/${p.id}/tasks/${res.task.id}`
      })
      const members = yield* human.client.projects.listMembers({ path: { project_id: p.id } })
      expect(members.members.map((m) => m.handle)).toContain(worker.user.handle)
      const got = yield* worker.client.tasks.getTask({ path: { task_id: res.task.id } })
      expect(got.task.checklist.map((i) => [i.text, i.is_checked])).toEqual([["outline", false], ["draft", true]])
      expect(got.task.comments).toEqual([])
      const evs = yield* events(worker.client)
      const assigned = evs.find((e) => e.type === "task.assigned")
      expect(assigned?.data).toMatchObject({
        id: res.task.id,
        title: "Write intro",
        project_name: "Docs",
        assigned_by_handle: human.user.handle,
        assigned_by_id: human.user.id
      })
      // `me`, assign_to and assigned_to_id are alternatives
      const mine = yield* agent.client.tasks.createTask({
        path: { project_id: (yield* newProject(agent.client)).id },
        payload: { title: "self", assign_to: "me" },
        headers: {}
      })
      expect(mine.task.assigned_to_id).toBe(agent.agent.id)
      const byId = yield* human.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "by id", assigned_to_id: agent.agent.id },
        headers: {}
      })
      expect(byId.task.assigned_to?.handle).toBe(agent.agent.handle)
      const nobody = yield* failure(human.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "x", assigned_to: "nobody-zz-q" },
        headers: {}
      }))
      expect(nobody._tag).toBe("NotFound")
    }))

  it.effect("list per project (status filter, both path forms), my tasks, and the unprefixed create", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const path = { project_id: p.id }
      const a = yield* agent.client.tasks.createTask({ path, payload: { title: "a", assigned_to: "me" }, headers: {} })
      yield* agent.client.tasksShort.createTask({ path, payload: { title: "b" }, headers: {} })
      yield* agent.client.tasks.updateTask({ path: { task_id: a.task.id }, payload: { status: "in_progress" } })
      const all = yield* agent.client.tasks.listTasks({ path, urlParams: {} })
      expect(all.tasks.map((t) => t.title)).toEqual(["a", "b"])
      expect(all.meta).toEqual({ total: 2, pages: 1, page: 1, limit: 50 })
      const short = yield* agent.client.tasksShort.listTasks({ path, urlParams: { status: "pending" } })
      expect(short.tasks.map((t) => t.title)).toEqual(["b"])
      const mine = yield* agent.client.tasks.myTasks({ urlParams: { status: "in_progress" } })
      expect(mine.tasks.map((t) => t.id)).toEqual([a.task.id])
      const raw = yield* rawRequest("GET", `/projects/${p.id}/tasks?status=bogus`, { key: agent.api_key })
      expectError(raw, 400, "invalid_request")
    }))

  it.effect("update: CONTRACT statuses, archived, reassign, move needs access to the destination", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const other = yield* signUp()
      const p = yield* newProject(agent.client)
      const q = yield* newProject(agent.client)
      const foreign = yield* newProject(other.client, { visibility: "public" })
      const t = yield* agent.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "t" },
        headers: {}
      })
      const path = { task_id: t.task.id }
      for (const status of ["in_progress", "review", "cancelled", "pending", "archived"] as const) {
        expect((yield* agent.client.tasks.updateTask({ path, payload: { status } })).task.status).toBe(status)
      }
      const raw = yield* rawRequest("POST", `/tasks/${t.task.id}/update`, {
        key: agent.api_key,
        body: JSON.stringify({ status: "pending_approval" })
      })
      expectError(raw, 400, "invalid_request")
      const moved = yield* agent.client.tasksShort.updateTask({
        path,
        payload: { project_id: q.id, assigned_to: other.user.handle, description: "moved" }
      })
      expect(moved.task).toMatchObject({ project_id: q.id, assigned_to_id: other.user.id, description: "moved" })
      expect(moved.task.permalink).toContain(`/projects/${q.id}/tasks/`)
      const denied = yield* failure(agent.client.tasks.updateTask({ path, payload: { project_id: foreign.id } }))
      expect(denied._tag).toBe("Forbidden")
      const hidden = yield* newProject(other.client)
      const missing = yield* failure(agent.client.tasks.updateTask({ path, payload: { project_id: hidden.id } }))
      expect(missing._tag).toBe("NotFound")
    }))

  it.effect("complete without a bounty → completed with the note; a retried completion changes nothing", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const t = yield* agent.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "t", assigned_to: "me" },
        headers: {}
      })
      const done = yield* agent.client.tasks.completeTask({
        path: { task_id: t.task.id },
        payload: { completion_note: "shipped" }
      })
      expect(done).toMatchObject({ status: "completed", task_id: t.task.id, gem_bounty: 0, next_task: null })
      expect(done.task.completion_note).toBe("shipped")
      expect(done.task.completed_at).not.toBeNull()
      const again = yield* agent.client.tasks.completeTask({ path: { task_id: t.task.id }, payload: {} })
      expect(again.task.completed_at).toBe(done.task.completed_at)
      // `{}` is enough (a body-less POST is the HTTP edge's to accept, for every all-optional call alike)
      const empty = yield* rawRequest("POST", `/api/agent/tasks/${t.task.id}/complete`, {
        key: agent.api_key,
        body: "{}"
      })
      expect(empty.status).toBe(200)
    }))

  it.effect("recurring: completion makes the next occurrence once, however often it is retried", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const t = yield* agent.client.tasks.createTask({
        path: { project_id: p.id },
        payload: {
          title: "standup",
          assigned_to: "me",
          recurrence: "monthly",
          deadline: "2027-01-31",
          checklists: [{ text: "notes" }]
        },
        headers: {}
      })
      const path = { task_id: t.task.id }
      const first = yield* agent.client.tasks.completeTask({ path, payload: {} })
      expect(first.next_task).toMatchObject({
        title: "standup",
        status: "pending",
        deadline: "2027-02-28T00:00:00.000Z"
      })
      const retried = yield* Effect.all(
        [1, 2, 3].map(() => agent.client.tasks.completeTask({ path, payload: {} })),
        { concurrency: 3 }
      )
      for (const r of retried) expect(r.next_task?.id).toBe(first.next_task?.id)
      // reopened and completed again through update: still the one occurrence
      yield* agent.client.tasks.updateTask({ path, payload: { status: "in_progress" } })
      yield* agent.client.tasks.updateTask({ path, payload: { status: "completed" } })
      const list = yield* agent.client.tasks.listTasks({ path: { project_id: p.id }, urlParams: {} })
      expect(list.tasks.length).toBe(2)
      const next = yield* agent.client.tasks.getTask({ path: { task_id: first.next_task!.id } })
      expect(next.task.checklist.map((i) => [i.text, i.is_checked])).toEqual([["notes", false]])
      const daily = yield* agent.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "d", assigned_to: "me", recurrence: "daily", deadline: "2027-03-01T09:00:00Z" },
        headers: {}
      })
      const d = yield* agent.client.tasks.completeTask({ path: { task_id: daily.task.id }, payload: {} })
      expect(d.next_task?.deadline).toBe("2027-03-02T09:00:00.000Z")
    }))

  it.effect("reschedule: assignee only, on the hour, in the future (422 otherwise); emits wave.scheduled", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const p = yield* newProject(human.client)
      const t = yield* human.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "deep work", assigned_to: agent.agent.handle },
        headers: {}
      })
      const path = { task_id: t.task.id }
      const notAssignee = yield* failure(
        human.client.tasks.rescheduleTask({ path, payload: { wave_time: nextHour() } })
      )
      expect(notAssignee._tag).toBe("Forbidden")
      const off = yield* failure(
        agent.client.tasks.rescheduleTask({ path, payload: { wave_time: nextHour().replace(":00:00", ":30:00") } })
      )
      expect(off._tag).toBe("Unprocessable")
      const past = yield* failure(agent.client.tasks.rescheduleTask({ path, payload: { wave_time: nextHour(-3) } }))
      expect(past._tag).toBe("Unprocessable")
      const raw = yield* rawRequest("POST", `/tasks/${t.task.id}/reschedule`, {
        key: agent.api_key,
        body: JSON.stringify({ wave_time: nextHour(1).replace(":00:00", ":15:00") })
      })
      expectError(raw, 422, "unprocessable")
      const at = nextHour(5)
      const ok = yield* agent.client.tasksShort.rescheduleTask({ path, payload: { wave_time: at } })
      expect(ok.task.wave_scheduled).toBe(at)
      expect(ok.wave_id).toBe(
        `${at.slice(0, 4)}${at.slice(5, 7)}${at.slice(8, 10)}${at.slice(11, 13)}${agent.agent.handle}`
      )
      const evs = yield* events(human.client)
      expect(evs.find((e) => e.type === "wave.scheduled")?.data).toMatchObject({ task_id: t.task.id, wave_time: at })
    }))

  it.effect("comments: create (both forms), list, edit by the author only with edited_at; task.comment emitted", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const p = yield* newProject(human.client)
      const t = yield* human.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "review", assigned_to: agent.agent.handle },
        headers: {}
      })
      const path = { task_id: t.task.id }
      const c = yield* human.client.tasks.createComment({ path, payload: { content: "please look" }, headers: {} })
      expect(c.task_permalink).toBe(t.task.permalink)
      yield* agent.client.tasksShort.createComment({ path, payload: { content: "on it" }, headers: {} })
      const list = yield* agent.client.tasks.listComments({ path })
      expect(list.comments.map((x) => [x.author_handle, x.content, x.edited_at])).toEqual([
        [human.user.handle, "please look", null],
        [agent.agent.handle, "on it", null]
      ])
      const denied = yield* failure(agent.client.tasks.editComment({
        path: { ...path, comment_id: c.comment_id },
        payload: { content: "hijack" }
      }))
      expect(denied._tag).toBe("Forbidden")
      const edited = yield* human.client.tasks.editComment({
        path: { ...path, comment_id: c.comment_id },
        payload: { content: "please look again" }
      })
      expect(edited.comment.content).toBe("please look again")
      expect(edited.comment.edited_at).not.toBeNull()
      const detail = yield* agent.client.tasks.getTask({ path })
      expect(detail.task.comments.length).toBe(2)
      expect(detail.task.comment_count).toBe(2)
      const evs = yield* events(agent.client)
      expect(evs.find((e) => e.type === "task.comment")?.data).toMatchObject({
        task_id: t.task.id,
        comment_id: c.comment_id,
        author_handle: human.user.handle
      })
      const tooLong = yield* rawRequest("POST", `/tasks/${t.task.id}/comment`, {
        key: agent.api_key,
        body: JSON.stringify({ content: "x".repeat(10_001) })
      })
      expectError(tooLong, 400, "invalid_request")
    }))

  it.effect("checklist: add (both forms) unchecked, toggle with and without is_checked", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const t = yield* agent.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "t" },
        headers: {}
      })
      const path = { task_id: t.task.id }
      const a = yield* agent.client.tasks.addChecklistItem({ path, payload: { text: "one" }, headers: {} })
      expect(a).toMatchObject({ status: "success", text: "one", is_checked: false })
      yield* agent.client.tasksShort.addChecklistItem({ path, payload: { text: "two" }, headers: {} })
      const on = yield* agent.client.tasks.toggleChecklistItem({ path: { ...path, item_id: a.id }, payload: {} })
      expect(on.is_checked).toBe(true)
      const set = yield* agent.client.tasks.toggleChecklistItem({
        path: { ...path, item_id: a.id },
        payload: { is_checked: true }
      })
      expect(set.is_checked).toBe(true)
      const detail = yield* agent.client.tasks.getTask({ path })
      expect(detail.task.checklist.map((i) => [i.text, i.is_checked])).toEqual([["one", true], ["two", false]])
      const wrong = yield* failure(agent.client.tasks.toggleChecklistItem({
        path: { ...path, item_id: crypto.randomUUID() as Ids.ChecklistItemId },
        payload: {}
      }))
      expect(wrong._tag).toBe("NotFound")
    }))

  it.effect("DELETE of a project with active tasks is a 409 naming the count; tasks/move empties it", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const q = yield* newProject(agent.client)
      const path = { project_id: p.id }
      for (const title of ["a", "b", "c"]) {
        yield* agent.client.tasks.createTask({ path, payload: { title }, headers: {} })
      }
      const done = yield* agent.client.tasks.createTask({
        path,
        payload: { title: "done", assigned_to: "me" },
        headers: {}
      })
      yield* agent.client.tasks.completeTask({ path: { task_id: done.task.id }, payload: {} })
      const conflict = yield* rawRequest("DELETE", `/api/agent/projects/${p.id}`, { key: agent.api_key })
      const e = expectError(conflict, 409, "conflict")
      expect(e.message).toMatch(/3 active tasks/)
      expect(e.message).toMatch(/move/)
      const moved = yield* agent.client.projects.moveTasks({ path, payload: { target_project_id: q.id } })
      expect(moved.moved_count).toBe(3)
      yield* agent.client.projects.deleteProject({ path })
      const left = yield* agent.client.tasks.listTasks({ path: { project_id: q.id }, urlParams: {} })
      expect(left.tasks.length).toBe(3)
    }))

  it.effect("Idempotency-Key on task create and comment replays the first answer", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const key = uniqueHandle("k")
      const body = JSON.stringify({ title: "once" })
      const send = (path: string) =>
        rawRequest("POST", path, { key: agent.api_key, body, headers: { "idempotency-key": key } })
      const a = yield* send(`/api/agent/projects/${p.id}/tasks`)
      const b = yield* send(`/projects/${p.id}/tasks`)
      expect(a.status).toBe(201)
      expect(b.headers["idempotent-replayed"]).toBe("true")
      expect(b.body.task.id).toBe(a.body.task.id)
      const list = yield* agent.client.tasks.listTasks({ path: { project_id: p.id }, urlParams: {} })
      expect(list.tasks.length).toBe(1)
    }))
})
