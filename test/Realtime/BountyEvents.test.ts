import { expect, layer } from "@effect/vitest"
import { EventCatalog } from "@shoal/domain"
import { Effect, Option } from "effect"
import { mcp } from "../Mcp/support.js"
import { newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { openSocket, RealtimeApp, receiver, waitFor } from "../support/Realtime.js"
import { client, createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { usingServer } from "../support/TestDatabase.js"
import { describeWallet } from "../Wallet/support.js"

const events = (key: string, type: string) =>
  Effect.flatMap(
    client(key),
    (c) => Effect.map(c.events.poll({ urlParams: { limit: 500 } }), (r) => r.events.filter((e) => e.type === type))
  )

const notifications = (key: string, type: string) =>
  Effect.map(
    rawRequest("GET", "/api/agent/notifications", { key }),
    (r) => (r.body.notifications as Array<any>).filter((n) => n.type === type)
  )

/**
 * A human's project where its agent created a task for itself and the human then put a bounty on it: the funder
 * (the human) is not the task's creator (the agent).
 */
const fundedByAnother = (bounty: number) =>
  Effect.gen(function*() {
    const human = yield* signUp(uniqueHandle("h"))
    const agent = yield* createAgent(human.api_key, uniqueHandle("a"))
    const project = yield* newProject(human.client)
    // the first task makes the agent a participant of the project
    yield* human.client.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: "Warm-up", assigned_to: agent.agent.handle },
      headers: {}
    })
    const { task } = yield* agent.client.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: "Write the report", assigned_to: "me" },
      headers: {}
    })
    yield* human.client.tasks.updateTask({ path: { task_id: task.id }, payload: { gem_bounty: bounty } })
    return { human, agent, project, task }
  })

layer(RealtimeApp({ WEBHOOK_ALLOW_PRIVATE: "true" }), { excludeTestServices: true })("bounty events", (it) => {
  it.scoped(
    "a completed bounty task tells its funder (not its creator) on the socket, by polling, by webhook and in notifications",
    () =>
      Effect.gen(function*() {
        const hook = yield* receiver()
        const { agent, human, project, task } = yield* fundedByAnother(40)
        yield* rawRequest("PATCH", "/api/agent/profile", {
          key: human.api_key,
          body: JSON.stringify({ webhook_url: hook.url })
        })
        const socket = yield* openSocket({ key: human.api_key })
        yield* socket.ready()

        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: { completion_note: "done" } })

        const expected = {
          task_id: task.id,
          title: "Write the report",
          project_id: project.id,
          project_name: project.title,
          permalink: task.permalink,
          amount: 40,
          assignee_id: agent.agent.id,
          assignee_handle: agent.agent.handle,
          note: "done"
        }
        const [live] = yield* socket.waitEvents("task.pending_approval", 1)
        expect(live!.event!.data).toEqual(expected)
        const polled = yield* events(human.api_key, "task.pending_approval")
        expect(polled.map((e) => e.data)).toEqual([expected])
        // the catalog decodes it into its member
        const decoded = Option.getOrThrow(EventCatalog.decodeEvent(polled[0]))
        expect(decoded.type).toBe("task.pending_approval")
        const req = yield* waitFor(
          "the webhook",
          () => hook.requests.find((r) => r.headers["x-service-event"] === "task.pending_approval")
        )
        expect(JSON.parse(req.body).data).toEqual(expected)
        const [note] = yield* notifications(human.api_key, "task.pending_approval")
        expect(note).toMatchObject({ data: expected, is_read: false })
        // and MCP's event resource, the same page as polling
        const session = yield* mcp(human.api_key)
        const read = yield* Effect.promise(() =>
          session.readResource({ uri: "shoal://events" }) as Promise<{ contents: Array<{ text?: string }> }>
        )
        const viaMcp = (JSON.parse(read.contents[0]!.text!).events as Array<{ type: string; data: unknown }>)
          .filter((e) => e.type === "task.pending_approval")
        expect(viaMcp.map((e) => e.data)).toEqual([expected])
        // the creator and assignee (the agent) gets its gems.pending, not the funder's event
        expect(yield* events(agent.api_key, "task.pending_approval")).toEqual([])
        // a retried completion tells nobody again
        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        expect(yield* events(human.api_key, "task.pending_approval")).toHaveLength(1)
      })
  )

  it.effect("a human with no socket and no webhook finds the pending approval in its notifications", () =>
    Effect.gen(function*() {
      const { agent, human, task } = yield* fundedByAnother(15)
      yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      const unread = yield* Effect.map(
        rawRequest("GET", "/api/agent/notifications?unread=true", { key: human.api_key }),
        (r) => (r.body.notifications as Array<any>).filter((n) => n.type === "task.pending_approval")
      )
      expect(unread.map((n) => n.data)).toMatchObject([{ task_id: task.id, amount: 15, note: null }])
    }))

  it.effect("the assignee hears the funder's rejection, then its approval, with the amount, the note and who decided", () =>
    Effect.gen(function*() {
      const { agent, human, project, task } = yield* fundedByAnother(25)
      const common = {
        task_id: task.id,
        title: "Write the report",
        project_id: project.id,
        project_name: project.title,
        permalink: task.permalink,
        amount: 25,
        decided_by_id: human.user.id,
        decided_by_handle: human.user.handle
      }
      yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      yield* human.client.tasks.rejectTask({
        path: { task_id: task.id },
        payload: { note: "add the figures" },
        headers: {}
      })
      expect((yield* events(agent.api_key, "task.rejected")).map((e) => e.data)).toEqual([
        { ...common, note: "add the figures" }
      ])
      expect(yield* events(agent.api_key, "task.approved")).toEqual([])

      // completed again: the funder hears of it a second time; approved without a note
      yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      expect(yield* events(human.api_key, "task.pending_approval")).toHaveLength(2)
      yield* human.client.tasks.approveTask({ path: { task_id: task.id }, payload: {}, headers: {} })
      expect((yield* events(agent.api_key, "task.approved")).map((e) => e.data)).toEqual([{ ...common, note: null }])
      const [approved] = yield* notifications(agent.api_key, "task.approved")
      expect(approved).toMatchObject({ data: { ...common, note: null } })
      // the decisions go to the assignee only
      expect(yield* events(human.api_key, "task.approved")).toEqual([])
      expect(yield* events(human.api_key, "task.rejected")).toEqual([])
    }))
})

// the wallet in its own process (`--only agent` beside `--only wallet`), which needs a server database: the task's
// transaction emits the events while the wallet settles before or after it
if (usingServer()) {
  describeWallet({}, "rpc")("bounty events (wallet over rpc)", (it) => {
    it.effect("the funder hears of the completion, the assignee of the rejection and the approval", () =>
      Effect.gen(function*() {
        const { agent, human, task } = yield* fundedByAnother(20)
        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        expect((yield* events(human.api_key, "task.pending_approval")).map((e) => e.data)).toMatchObject([
          { task_id: task.id, amount: 20, assignee_id: agent.agent.id }
        ])
        yield* human.client.tasks.rejectTask({ path: { task_id: task.id }, payload: { note: "again" }, headers: {} })
        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        yield* human.client.tasks.approveTask({ path: { task_id: task.id }, payload: { note: "ok" }, headers: {} })
        expect((yield* events(agent.api_key, "task.rejected")).map((e) => e.data)).toMatchObject([
          { task_id: task.id, amount: 20, note: "again", decided_by_id: human.user.id }
        ])
        expect((yield* events(agent.api_key, "task.approved")).map((e) => e.data)).toMatchObject([
          { task_id: task.id, amount: 20, note: "ok", decided_by_id: human.user.id }
        ])
        expect(yield* events(human.api_key, "task.pending_approval")).toHaveLength(2)
      }))
  })
}
