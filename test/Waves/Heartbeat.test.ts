import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { failure, humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { createAgent, describeApp, signUp } from "../support/TestApp.js"

describeApp()("heartbeat, fleet, usage", (it) => {
  it.effect("a heartbeat takes an empty body, {}, or a JSON type with no body", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const forms = [
        {},
        { body: "{}" },
        { body: "" },
        { body: "{}", headers: { "content-type": "application/json; charset=utf-8" } }
      ]
      for (const options of forms) {
        const r = yield* rawRequest("POST", "/api/agent/heartbeat", { key: agent.api_key, ...options })
        expect(r.status).toBe(200)
        expect(r.body).toMatchObject({ status: "success", connected: true })
        expect(Math.abs(Date.parse(r.body.last_heartbeat_at) - Date.now())).toBeLessThan(60_000)
      }
      const typed = yield* agent.client.waves.heartbeat({ payload: {} })
      expect(typed.connected).toBe(true)
      expectError(yield* rawRequest("POST", "/api/agent/heartbeat"), 401, "unauthorized")
      expectError(
        yield* rawRequest("POST", "/api/agent/heartbeat", { key: agent.api_key, body: "{\"beat\":1}" }),
        400,
        "invalid_request"
      )
      expectError(
        yield* rawRequest("POST", "/api/agent/heartbeat", { key: agent.api_key, body: "[]" }),
        400,
        "invalid_request"
      )
    }))

  it.effect("fleet: a human sees its agents; an agent sees its owner's, itself marked", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const quiet = yield* createAgent(human.api_key)
      yield* agent.client.waves.heartbeat({ payload: {} })
      const seen = yield* human.client.waves.fleet()
      expect(seen.fleet.map((m) => m.handle)).toEqual([agent.agent.handle, quiet.agent.handle])
      const a = seen.fleet.find((m) => m.handle === agent.agent.handle)!
      expect(a).toMatchObject({ id: agent.agent.id, connected: true, is_me: false })
      expect(a.last_heartbeat_at).not.toBeNull()
      // creating the agent is no call of its own
      expect(seen.fleet.find((m) => m.handle === quiet.agent.handle)).toMatchObject({
        connected: false,
        last_heartbeat_at: null
      })
      const fromAgent = yield* agent.client.waves.fleet()
      expect(fromAgent.fleet.map((m) => [m.handle, m.is_me])).toEqual([
        [agent.agent.handle, true],
        [quiet.agent.handle, false]
      ])
      const lonely = yield* signUp()
      expect((yield* lonely.client.waves.fleet()).fleet).toEqual([])
    }))

  it.effect("usage: reports need model and total_tokens, a visible context; totals by day, model, project", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const project = yield* newProject(agent.client)
      const r1 = yield* agent.client.waves.reportUsage({
        payload: { model: "m-large", total_tokens: 150, input_tokens: 100, output_tokens: 50, project_id: project.id },
        headers: {}
      })
      expect(r1.usage).toMatchObject({ model: "m-large", total_tokens: 150, project_id: project.id, provider: null })
      yield* agent.client.waves.reportUsage({
        payload: { model: "m-small", total_tokens: 10, provider: "acme" },
        headers: {}
      })
      yield* agent.client.waves.reportUsage({ payload: { model: "m-large", total_tokens: 5 }, headers: {} })

      const missing = yield* rawRequest("POST", "/api/agent/usage", {
        key: agent.api_key,
        body: JSON.stringify({ model: "m" })
      })
      expectError(missing, 400, "invalid_request")
      const negative = yield* rawRequest("POST", "/api/agent/usage", {
        key: agent.api_key,
        body: JSON.stringify({ model: "m", total_tokens: -1 })
      })
      expectError(negative, 400, "invalid_request")
      const inconsistent = yield* rawRequest("POST", "/api/agent/usage", {
        key: agent.api_key,
        body: JSON.stringify({ model: "m", total_tokens: 1, input_tokens: 5 })
      })
      expectError(inconsistent, 400, "invalid_request")
      // a private project of someone else is as unknown as a missing one
      const other = yield* newProject(human.client)
      const hidden = yield* failure(agent.client.waves.reportUsage({
        payload: { model: "m", total_tokens: 1, project_id: other.id },
        headers: {}
      }))
      expect(hidden._tag).toBe("NotFound")
      const noTask = yield* failure(agent.client.waves.reportUsage({
        payload: { model: "m", total_tokens: 1, task_id: "00000000-0000-4000-8000-000000000000" as any },
        headers: {}
      }))
      expect(noTask._tag).toBe("NotFound")

      const today = new Date().toISOString().slice(0, 10)
      const summary = yield* agent.client.waves.usage({ urlParams: {} })
      expect(summary.to).toBe(today)
      expect(summary.totals).toEqual({ input_tokens: 100, output_tokens: 50, total_tokens: 165, reports: 3 })
      expect(summary.by_day).toEqual([{
        day: today,
        input_tokens: 100,
        output_tokens: 50,
        total_tokens: 165,
        reports: 3
      }])
      expect(summary.by_model.map((m) => [m.model, m.total_tokens, m.reports])).toEqual([
        ["m-large", 155, 2],
        ["m-small", 10, 1]
      ])
      expect(summary.by_project.map((p) => [p.project_id, p.total_tokens])).toEqual([[project.id, 150], [null, 15]])
      // the owner has its own (empty) usage
      expect((yield* human.client.waves.usage({ urlParams: {} })).totals.reports).toBe(0)
      const backwards = yield* rawRequest("GET", "/api/agent/usage?from=2026-05-02&to=2026-05-01", {
        key: agent.api_key
      })
      expectError(backwards, 400, "invalid_request")
    }))
})
