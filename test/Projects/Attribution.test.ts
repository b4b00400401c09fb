import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { describeApp } from "../support/TestApp.js"
import { humanWithAgent } from "./support.js"

const unlinked = /audit trail is not linked/

describeApp()("attribution (requested_by) on the six calls", (it) => {
  it.effect("resolved by handle or id → a requested_by object; unresolved → success with a warning", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const c = agent.client
      const person = { id: human.user.id, handle: human.user.handle, display_name: human.user.display_name }

      const p1 = yield* c.projects.createProject({
        payload: { title: "attributed", requested_by: human.user.handle.toUpperCase() },
        headers: {}
      })
      expect(p1.project.requested_by).toEqual(person)
      expect(p1.warning).toBeUndefined()
      const p2 = yield* c.projects.createProject({ payload: { title: "x", requested_by: "ghost-user" }, headers: {} })
      expect(p2.warning).toMatch(unlinked)
      expect(p2.project.requested_by).toBeUndefined()

      const u1 = yield* c.projects.updateProject({
        path: { project_id: p2.project.id },
        payload: { description: "d", requested_by_id: human.user.id }
      })
      expect(u1.project.requested_by).toEqual(person)
      const u2 = yield* c.projects.updateProject({
        path: { project_id: p2.project.id },
        payload: { requested_by_id: crypto.randomUUID() }
      })
      expect(u2.warning).toMatch(unlinked)

      const path = { project_id: p1.project.id }
      const t1 = yield* c.tasks.createTask({ path, payload: { title: "t", requested_by: human.user.id }, headers: {} })
      expect(t1.task.requested_by).toEqual(person)
      const t2 = yield* c.tasks.createTask({ path, payload: { title: "t", requested_by: "nobody-x" }, headers: {} })
      expect(t2.warning).toMatch(unlinked)
      expect(t2.task.requested_by).toBeUndefined()

      const tu1 = yield* c.tasks.updateTask({
        path: { task_id: t2.task.id },
        payload: { status: "in_progress", requested_by: human.user.handle }
      })
      expect(tu1.task.requested_by).toEqual(person)
      const tu2 = yield* c.tasks.updateTask({ path: { task_id: t2.task.id }, payload: { requested_by: "ghost-2" } })
      expect(tu2.warning).toMatch(unlinked)

      const c1 = yield* c.tasks.createComment({
        path: { task_id: t1.task.id },
        payload: { content: "hi", requested_by: human.user.handle },
        headers: {}
      })
      expect(c1.comment.requested_by).toEqual(person)
      const c2 = yield* c.tasks.createComment({
        path: { task_id: t1.task.id },
        payload: { content: "hi", requested_by: "ghost-3" },
        headers: {}
      })
      expect(c2.warning).toMatch(unlinked)

      const e1 = yield* c.tasks.editComment({
        path: { task_id: t1.task.id, comment_id: c2.comment_id },
        payload: { content: "edited", requested_by: human.user.id }
      })
      expect(e1.comment.requested_by).toEqual(person)
      const e2 = yield* c.tasks.editComment({
        path: { task_id: t1.task.id, comment_id: c2.comment_id },
        payload: { content: "again", requested_by: "ghost-4" }
      })
      expect(e2.warning).toMatch(unlinked)
      expect(e2.comment.content).toBe("again")
    }))
})
