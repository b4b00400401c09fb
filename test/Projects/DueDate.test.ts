import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"
import { humanWithAgent, newProject } from "./support.js"

// the spec names the deadline `due_date` for the legacy client, which sends it: accepted as input for `deadline`
describeApp()("due_date as input", (it) => {
  it.effect("create and update take due_date for deadline; both given and different → 400 naming due_date", () =>
    Effect.gen(function*() {
      const { human } = yield* humanWithAgent
      const p = yield* newProject(human.client)
      const created = yield* rawRequest("POST", `/api/agent/projects/${p.id}/tasks`, {
        key: human.api_key,
        body: JSON.stringify({ title: "legacy", due_date: "2026-12-24" })
      })
      expect(created.status).toBe(201)
      expect(created.body.task).toMatchObject({
        deadline: "2026-12-24T00:00:00.000Z",
        due_date: "2026-12-24T00:00:00.000Z"
      })
      const id = created.body.task.id as string

      const updated = yield* rawRequest("POST", `/api/agent/tasks/${id}/update`, {
        key: human.api_key,
        body: JSON.stringify({ due_date: "2027-01-05T10:00:00Z" })
      })
      expect(updated.status).toBe(200)
      expect(updated.body.task).toMatchObject({
        deadline: "2027-01-05T10:00:00.000Z",
        due_date: "2027-01-05T10:00:00.000Z"
      })

      // the same instant written two ways agrees
      const same = yield* rawRequest("POST", `/api/agent/tasks/${id}/update`, {
        key: human.api_key,
        body: JSON.stringify({ deadline: "2027-02-01T00:00Z", due_date: "2027-02-01T00:00:00.000Z" })
      })
      expect(same.status).toBe(200)
      expect(same.body.task.deadline).toBe("2027-02-01T00:00:00.000Z")

      const conflicting = yield* rawRequest("POST", `/api/agent/tasks/${id}/update`, {
        key: human.api_key,
        body: JSON.stringify({ deadline: "2027-03-01", due_date: "2027-04-01" })
      })
      const error = expectError(conflicting, 400, "invalid_request")
      expect(error.message).toContain("due_date")
      const refusedCreate = yield* rawRequest("POST", `/api/agent/projects/${p.id}/tasks`, {
        key: human.api_key,
        body: JSON.stringify({ title: "x", deadline: "2027-03-01", due_date: "2027-04-01" })
      })
      expectError(refusedCreate, 400, "invalid_request")
      const bad = yield* rawRequest("POST", `/api/agent/tasks/${id}/update`, {
        key: human.api_key,
        body: JSON.stringify({ due_date: "soon" })
      })
      expectError(bad, 400, "invalid_request")

      // null clears it, as deadline: null does
      const cleared = yield* human.client.tasks.updateTask({
        path: { task_id: id as any },
        payload: { due_date: null }
      })
      expect(cleared.task.deadline).toBeNull()
    }))
})
