import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { createAgent, describeApp, signUp } from "../support/TestApp.js"

const json = (v: unknown) => JSON.stringify(v)
const fakeTask = "00000000-0000-4000-8000-000000000000"

describeApp()("dates stay in the years 0001 to 9999", (it) => {
  it.effect("a date-time past 9999 once its zone is applied is a 400 naming the field, in every date field", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const key = human.api_key
      const project = yield* human.client.projects.createProject({ payload: { title: "Dates" }, headers: {} })
      const cases: Array<[string, string, unknown, string]> = [
        ["POST", `/api/agent/tasks/${fakeTask}/reschedule`, { wave_time: "9999-12-31T23:00:00-01:00" }, "wave_time"],
        ["POST", `/api/agent/projects/${project.project.id}/tasks`, {
          title: "late",
          wave_scheduled: "9999-12-31T23:00:00-01:00"
        }, "wave_scheduled"],
        ["POST", "/api/agent/projects", { title: "late", deadline: "9999-12-31T23:30:00-01:00" }, "deadline"],
        ["POST", "/api/agent/projects", { title: "early", deadline: "0000-12-31" }, "deadline"],
        ["PATCH", `/api/agent/projects/${project.project.id}`, { deadline: "0000-06-01T00:00:00Z" }, "deadline"]
      ]
      for (const [method, path, body, field] of cases) {
        const e = expectError(
          yield* rawRequest(method as "POST", path, { key, body: json(body) }),
          400,
          "invalid_request"
        )
        expect(e.details, json(body)).toMatchObject({ field })
        expect(e.message, json(body)).toMatch(/0001 to 9999/)
      }
      // the last instant is still taken
      const ok = yield* rawRequest("POST", "/api/agent/projects", {
        key,
        body: json({ title: "last", deadline: "9999-12-31T23:00:00Z" })
      })
      expect(ok.status).toBe(201)
    }))

  it.effect("day windows that reach 9999-12-31 answer, never a 500 nor a wave id past 9999", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const usage = yield* rawRequest("GET", "/api/agent/usage?from=9999-12-01&to=9999-12-31", { key: agent.api_key })
      expect(usage.status).toBe(200)
      expect(usage.body).toMatchObject({ from: "9999-12-01", to: "9999-12-31" })
      const past = yield* rawRequest("GET", "/api/agent/usage?to=10000-01-01", { key: agent.api_key })
      expect(expectError(past, 400, "invalid_request").details).toMatchObject({ field: "to" })
      const zero = yield* rawRequest("GET", "/api/agent/usage?from=0000-01-01", { key: agent.api_key })
      expect(expectError(zero, 400, "invalid_request").details).toMatchObject({ field: "from" })
      for (
        const path of [
          "/api/agent/schedule?date=9999-12-31&range=168",
          `/mission_control/api/schedule/${agent.agent.handle}?date=9999-12-31`
        ]
      ) {
        const res = yield* rawRequest("GET", path, { key: agent.api_key })
        expect(res.status, path).toBe(200)
        expect(res.text, path).not.toMatch(/\+0100/)
      }
      // a wave id that is not YYYYMMDDHH + handle names its field
      const wave = yield* rawRequest("POST", "/api/agent/wave/complete", {
        key: agent.api_key,
        body: json({ wave_id: `+010000101${agent.agent.handle}` })
      })
      expect(expectError(wave, 400, "invalid_request").details).toMatchObject({ field: "wave_id" })
    }))
})
