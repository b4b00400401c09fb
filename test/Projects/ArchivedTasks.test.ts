import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { describeApp } from "../support/TestApp.js"
import { humanWithAgent, newProject } from "./support.js"

// the spec: archiving "replaces deletion" (data kept), so an archived task leaves the lists unless asked for
describeApp()("archived tasks", (it) => {
  it.effect("hidden from the project's and the assignee's task lists unless status=archived is asked for", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const p = yield* newProject(human.client)
      const create = (title: string) =>
        Effect.map(
          human.client.tasks.createTask({
            path: { project_id: p.id },
            payload: { title, assigned_to: agent.agent.handle },
            headers: {}
          }),
          (r) => r.task
        )
      const kept = yield* create("kept")
      const old = yield* create("old")
      yield* human.client.tasks.updateTask({ path: { task_id: old.id }, payload: { status: "archived" } })

      const project = yield* human.client.tasks.listTasks({ path: { project_id: p.id }, urlParams: {} })
      expect(project.tasks.map((t) => t.id)).toEqual([kept.id])
      expect(project.meta.total).toBe(1)
      const archived = yield* human.client.tasks.listTasks({
        path: { project_id: p.id },
        urlParams: { status: "archived" }
      })
      expect(archived.tasks.map((t) => [t.id, t.status])).toEqual([[old.id, "archived"]])

      const mine = yield* agent.client.tasks.myTasks({ urlParams: {} })
      expect(mine.tasks.map((t) => t.id)).toEqual([kept.id])
      const mineArchived = yield* agent.client.tasks.myTasks({ urlParams: { status: "archived" } })
      expect(mineArchived.tasks.map((t) => t.id)).toEqual([old.id])

      // still there: read by id, as before
      const read = yield* human.client.tasks.getTask({ path: { task_id: old.id } })
      expect(read.task.status).toBe("archived")
    }))
})
