import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp, uniqueHandle } from "../support/TestApp.js"

const today = () => new Date().toISOString().slice(0, 10)

describeApp()("an owner's reads of its agents (CONTRACT \"Owners' ledger and reads\")", (it) => {
  it.effect("usage: what GET /api/agent/usage answers the agent, to its owner", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      yield* agent.client.waves.reportUsage({
        payload: { model: "m-large", total_tokens: 150, input_tokens: 100, output_tokens: 50 },
        headers: {}
      })
      yield* agent.client.waves.reportUsage({ payload: { model: "m-small", total_tokens: 10 }, headers: {} })
      const own = yield* agent.client.waves.usage({ urlParams: {} })
      const read = yield* human.client.ownerReads.agentUsage({ path: { handle: agent.agent.handle }, urlParams: {} })
      expect(read).toEqual(own)
      expect(read.totals).toMatchObject({ total_tokens: 160, reports: 2 })
      expect(read.by_model.map((m) => m.model).sort()).toEqual(["m-large", "m-small"])
    }))

  it.effect("balance: the wallet's figures for the agent, pending Gems of a completed bounty included", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const project = yield* newProject(human.client)
      const { task } = yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "paid", assigned_to: agent.agent.handle, gem_bounty: 40 },
        headers: {}
      })
      yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      const balance = yield* human.client.ownerReads.agentBalance({ path: { handle: agent.agent.handle } })
      expect(balance).toMatchObject({ agent_id: agent.agent.id, balance: 0, pending: 40, lifetime_earned: 0 })
      yield* human.client.tasks.approveTask({ path: { task_id: task.id }, payload: {}, headers: {} })
      const after = yield* human.client.ownerReads.agentBalance({ path: { handle: agent.agent.handle } })
      expect(after).toMatchObject({ balance: 40, pending: 0, lifetime_earned: 40 })
    }))

  it.effect("schedule: the agent's slots of a day, as the schedule read answers them", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const date = today()
      const read = yield* human.client.ownerReads.agentSchedule({
        path: { handle: agent.agent.handle },
        urlParams: { date }
      })
      const same = yield* human.client.waves.daySchedule({ path: { agent: agent.agent.handle }, urlParams: { date } })
      expect(read).toEqual(same)
      expect(read).toMatchObject({ agent_id: agent.agent.id, handle: agent.agent.handle, date })
    }))

  it.effect("activity: tasks, posts, messages sent and Gems movements, newest first, in pages", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const project = yield* newProject(human.client)
      const { task } = yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "work", assigned_to: agent.agent.handle, gem_bounty: 10 },
        headers: {}
      })
      yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      const post = yield* agent.client.social.createPost({ payload: { content: "shipped it" }, headers: {} })
      const sent = yield* agent.client.messages.sendMessage({
        payload: { recipient_handle: human.user.handle, content: "done, please approve" },
        headers: {}
      })
      const all = yield* human.client.ownerReads.agentActivity({ path: { handle: agent.agent.handle }, urlParams: {} })
      expect(all.handle).toBe(agent.agent.handle)
      expect(new Set(all.items.map((i) => i.type))).toEqual(new Set(["task", "post", "message", "gems"]))
      expect(all.items.find((i) => i.type === "post")).toMatchObject({ id: post.post.id, summary: "shipped it" })
      expect(all.items.find((i) => i.type === "message")).toMatchObject({
        id: sent.message.id,
        to_handle: human.user.handle
      })
      expect(all.items.find((i) => i.type === "task")).toMatchObject({ id: task.id, project_id: project.id })
      expect(all.items.find((i) => i.type === "gems")).toMatchObject({ amount: 10 })
      const ats = all.items.map((i) => i.at)
      expect([...ats].sort().reverse()).toEqual(ats)
      expect(all.next_cursor).toBeNull()

      // one at a time: the same items, in the same order, none twice
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const p = yield* human.client.ownerReads.agentActivity({
          path: { handle: agent.agent.handle },
          urlParams: { limit: 1, ...(cursor === undefined ? {} : { cursor }) }
        })
        seen.push(...p.items.map((i) => i.id))
        cursor = p.next_cursor ?? undefined
      } while (cursor !== undefined)
      expect(seen).toEqual(all.items.map((i) => i.id))
    }))

  it.effect("each read is a 403 for another human's agent and for an agent key, a 404 for an unknown handle", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const stranger = yield* signUp(uniqueHandle("s"))
      const unknown = uniqueHandle("nobody")
      for (const read of ["usage", "balance", "schedule", "activity"]) {
        const path = (handle: string) => `/api/account/agents/${handle}/${read}`
        expectError(yield* rawRequest("GET", path(agent.agent.handle), { key: stranger.api_key }), 403, "forbidden")
        expectError(yield* rawRequest("GET", path(agent.agent.handle), { key: agent.api_key }), 403, "forbidden")
        expectError(yield* rawRequest("GET", path(unknown), { key: human.api_key }), 404, "not_found")
        // a human is no agent to read
        expectError(yield* rawRequest("GET", path(stranger.user.handle), { key: human.api_key }), 404, "not_found")
        expect((yield* rawRequest("GET", path(agent.agent.handle), { key: human.api_key })).status).toBe(200)
      }
    }))
})
