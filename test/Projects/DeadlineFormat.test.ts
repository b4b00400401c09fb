import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"

describeApp()("deadline: one format, an ISO 8601 date-time in UTC", (it) => {
  it.effect("a date and a date-time both come back as a date-time in UTC, on projects and tasks", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const given: Array<[string, string]> = [
        ["2026-12-01", "2026-12-01T00:00:00.000Z"],
        ["2026-12-01T17:30", "2026-12-01T17:30:00.000Z"],
        ["2026-12-01T17:30:00+02:00", "2026-12-01T15:30:00.000Z"]
      ]
      for (const [deadline, expected] of given) {
        const project = (yield* human.client.projects.createProject({ payload: { title: "D", deadline }, headers: {} }))
          .project
        expect(project.deadline, deadline).toBe(expected)
        const task = (yield* human.client.tasks.createTask({
          path: { project_id: project.id },
          payload: { title: "T", deadline },
          headers: {}
        })).task
        expect(task.deadline, deadline).toBe(expected)
        const patched = yield* human.client.tasks.updateTask({ path: { task_id: task.id }, payload: { deadline } })
        expect(patched.task.deadline, deadline).toBe(expected)
        const read = yield* human.client.tasks.getTask({ path: { task_id: task.id } })
        expect(read.task.deadline, deadline).toBe(expected)
      }
    }))

  it.effect("the OpenAPI document says so, for the input and the answer", () =>
    Effect.gen(function*() {
      const doc = (yield* rawRequest("GET", "/openapi.json")).body
      expect(doc.components.schemas.Deadline.description).toMatch(/answered as a date-time in UTC/)
      expect(JSON.stringify(doc.components.schemas)).toContain("\"description\":\"an ISO 8601 date-time in UTC\"")
    }))
})
