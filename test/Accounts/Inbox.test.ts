import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { type Client, humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { createAgent, describeApp, signUp, uniqueHandle } from "../support/TestApp.js"

/** A gig in a new public project of `owner`, and the application of `applicant` to it. */
const gigApplied = (owner: { readonly client: Client }, applicant: { readonly client: Client }) =>
  Effect.gen(function*() {
    const project = yield* newProject(owner.client, { visibility: "public" })
    const { task } = yield* owner.client.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: `gig ${project.id.slice(0, 4)}`, gem_bounty: 5 },
      headers: {}
    })
    const { application } = yield* applicant.client.gigs.applyGig({
      path: { task_id: task.id },
      payload: { message: "pick me" },
      headers: {}
    })
    return { project, task, application }
  })

describeApp()("the owner's inbox in one request (issue 44)", (it) => {
  it.effect("lists completions, applications, message requests and its agents' unread DMs, typed, newest first", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const stranger = yield* signUp(uniqueHandle("s"))
      const outsider = yield* createAgent(stranger.api_key, uniqueHandle("b"))

      const project = yield* newProject(human.client)
      const { task } = yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "bounty work", assigned_to: agent.agent.handle, gem_bounty: 25 },
        headers: {}
      })
      yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      const gig = yield* gigApplied(human, outsider)
      const toAgent = yield* outsider.client.messages.sendMessage({
        payload: { recipient_handle: agent.agent.handle, content: "hello agent" },
        headers: {}
      })
      const toHuman = yield* outsider.client.messages.sendMessage({
        payload: { recipient_handle: human.user.handle, content: "hello human" },
        headers: {}
      })
      expect([toAgent.message.state, toHuman.message.state]).toEqual(["pending_approval", "pending_approval"])
      const dm = yield* agent.client.messages.sendMessage({
        payload: { recipient_handle: human.user.handle, content: "please approve my work" },
        headers: {}
      })
      expect(dm.message.state).toBe("delivered")

      const inbox = yield* human.client.ownerReads.inbox({ urlParams: {} })
      expect(inbox.counts).toEqual({ completion: 1, application: 1, message_request: 2, agent_message: 1 })
      expect(inbox.items.map((i) => [i.type, i.id])).toEqual([
        ["agent_message", dm.message.id],
        ["message_request", toHuman.message.id],
        ["message_request", toAgent.message.id],
        ["application", gig.application.id],
        ["completion", task.id]
      ])
      expect(inbox.items[0]).toMatchObject({ from_handle: agent.agent.handle, summary: "please approve my work" })
      expect(inbox.items[2]).toMatchObject({ from_handle: outsider.agent.handle, to_handle: agent.agent.handle })
      expect(inbox.items[3]).toMatchObject({ task_id: gig.task.id, project_id: gig.project.id, summary: "pick me" })
      expect(inbox.items[4]).toMatchObject({ from_handle: agent.agent.handle, amount: 25, summary: "bounty work" })
      expect(inbox.next_cursor).toBeNull()

      // pages of two: the same items in the same order, the counts on each
      const ids: Array<string> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const p = yield* human.client.ownerReads.inbox({
          urlParams: { limit: 2, ...(cursor === undefined ? {} : { cursor }) }
        })
        expect(p.counts).toEqual(inbox.counts)
        ids.push(...p.items.map((i) => i.id))
        cursor = p.next_cursor ?? undefined
        pages++
      } while (cursor !== undefined)
      expect(pages).toBe(3)
      expect(ids).toEqual(inbox.items.map((i) => i.id))

      // acting on an item takes it out: the approval, the read DM
      yield* human.client.tasks.approveTask({ path: { task_id: task.id }, payload: {}, headers: {} })
      yield* human.client.messages.markMessagesRead({ payload: { message_id: dm.message.id } })
      const after = yield* human.client.ownerReads.inbox({ urlParams: {} })
      expect(after.counts).toEqual({ completion: 0, application: 1, message_request: 2, agent_message: 0 })
    }))

  it.effect("is for humans (an agent key is a 403) and refuses a cursor it did not give", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      expectError(yield* rawRequest("GET", "/api/account/inbox", { key: agent.api_key }), 403, "forbidden")
      expectError(
        yield* rawRequest("GET", "/api/account/inbox?cursor=bm9wZQ", { key: human.api_key }),
        400,
        "invalid_request"
      )
    }))

  it.effect(
    "an owner with 60 projects loads it in a couple of requests, ten times in a row without a 429",
    () =>
      Effect.gen(function*() {
        const owner = yield* signUp(uniqueHandle("h"))
        const stranger = yield* signUp(uniqueHandle("s"))
        const applicant = yield* createAgent(stranger.api_key, uniqueHandle("b"))
        yield* Effect.forEach(Array.from({ length: 60 }), () => gigApplied(owner, applicant), { concurrency: 4 })

        const times: Array<number> = []
        for (let load = 0; load < 10; load++) {
          let requests = 0
          let cursor: string | undefined
          let items = 0
          do {
            const started = performance.now()
            const res = yield* rawRequest(
              "GET",
              `/api/account/inbox${cursor === undefined ? "" : `?cursor=${cursor}`}`,
              {
                key: owner.api_key
              }
            )
            times.push(performance.now() - started)
            requests++
            expect(res.status).toBe(200)
            expect(res.body.counts.application).toBe(60)
            items += res.body.items.length
            cursor = res.body.next_cursor ?? undefined
          } while (cursor !== undefined)
          expect(items).toBe(60)
          expect(requests).toBeLessThanOrEqual(10)
        }
        const sorted = [...times].sort((a, b) => a - b)
        console.log(
          `inbox of 60 projects: ${times.length / 10} requests a load; one request median ` +
            `${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms`
        )
      }),
    { timeout: 120_000 }
  )
})
