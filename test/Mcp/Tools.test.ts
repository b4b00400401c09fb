import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletClient } from "../Wallet/support.js"
import { call, mcp, ok, TOOLS } from "./support.js"

const HOUR = 3_600_000

describeWallet()("mcp tools", (it) => {
  it.scoped("every tool answers on a fresh database, as the key's principal, with effects visible over REST", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"), "Owner Human")
      const agent = yield* createAgent(human.api_key, uniqueHandle("a"), "Worker Agent")
      const peer = yield* createAgent(human.api_key, uniqueHandle("b"), "Peer Agent")
      const client = yield* mcp(agent.api_key)
      const called = new Set<string>()
      const use = (name: string, args: Record<string, unknown> = {}) => {
        called.add(name)
        return ok(client, name, args)
      }

      expect((yield* use("whoami")).user).toMatchObject({ id: agent.agent.id, handle: agent.agent.handle })
      expect((yield* use("heartbeat")).status).toBe("success")
      expect((yield* use("wave_status")).status).toBe("success")
      expect((yield* use("wave_check_in")).wave_id).toContain(agent.agent.handle)

      // projects and tasks: made by tool, seen by REST
      const title = `MCP ${uniqueHandle("p")}`
      const { project } = yield* use("create_project", { title })
      const found = yield* use("search_projects", { q: title, limit: 5 })
      expect(found.projects.map((p: { id: string }) => p.id)).toEqual([project.id])
      const created = yield* use("create_task", {
        project_id: project.id,
        title: "Index the docs",
        assigned_to: agent.agent.handle
      })
      const task = created.task
      expect((yield* human.client.tasks.getTask({ path: { task_id: task.id } })).task.title).toBe("Index the docs")
      yield* use("add_checklist_item", { task_id: task.id, text: "read the README" })
      yield* use("comment_on_task", { task_id: task.id, content: "started via MCP" })
      const detail = yield* agent.client.tasks.getTask({ path: { task_id: task.id } })
      expect(detail.task.checklist.map((i) => i.text)).toEqual(["read the README"])
      expect(detail.task.comments.map((c) => c.content)).toContain("started via MCP")
      expect((yield* use("my_tasks", { status: "pending", limit: 10 })).tasks.map((t: { id: string }) => t.id))
        .toContain(task.id)
      expect((yield* use("get_task", { task_id: task.id })).task).toMatchObject({ id: task.id, comment_count: 1 })

      // the hour's Wave: a slot, the schedule, completing it moves the task
      const hour = new Date(Math.floor(Date.now() / HOUR) * HOUR).toISOString()
      expect(yield* use("schedule_slot", { agent: "me", wave_time: hour, task_id: task.id })).toMatchObject({
        task_id: task.id
      })
      const schedule = yield* use("my_schedule", { range: 2 })
      expect(schedule.schedule.map((s: { task: { id: string } | null }) => s.task?.id)).toContain(task.id)
      const waved = yield* use("wave_complete", { task_status: "in_progress", comment: "wave done" })
      expect(waved).toMatchObject({ status: "success", task_id: task.id })
      expect((yield* use("update_task", { task_id: task.id, status: "review" })).task.status).toBe("review")
      expect((yield* use("complete_task", { task_id: task.id, completion_note: "done" })).task_id).toBe(task.id)
      expect((yield* human.client.tasks.getTask({ path: { task_id: task.id } })).task.status).toBe("completed")

      // gigs: another human's public task with a bounty
      const skill = uniqueHandle("skill")
      const gigProject = yield* newProject(human.client, { visibility: "public", skills: [skill] })
      const other = yield* signUp(uniqueHandle("o"))
      const gig = (yield* human.client.tasks.createTask({
        path: { project_id: gigProject.id },
        payload: { title: "Port the parser", gem_bounty: 30 },
        headers: {}
      })).task
      expect((yield* use("list_gigs", { skill, limit: 5 })).gigs.map((g: { id: string }) => g.id)).toEqual([gig.id])
      const otherAgent = yield* createAgent(other.api_key, uniqueHandle("c"))
      const applicant = yield* mcp(otherAgent.api_key)
      called.add("apply_gig")
      yield* ok(applicant, "apply_gig", { task_id: gig.id, message: "I know parsers" })
      const applications = yield* human.client.gigs.listApplications({ path: { task_id: gig.id } })
      expect(applications.applications.map((a) => a.applicant_id)).toEqual([otherAgent.agent.id])

      // Gems: awarded over the wallet API, moved by tool, seen by the wallet API
      const wallet = yield* walletClient(human.api_key)
      yield* wallet.account.award({ payload: { to_agent: agent.agent.id, amount: 20 }, headers: {} })
      expect(yield* use("gems_balance")).toMatchObject({ agent_id: agent.agent.id, balance: 20 })
      expect((yield* use("gems_transfer", { to_agent: peer.agent.handle, amount: 5 })).new_balance).toBe(15)
      expect((yield* (yield* walletClient(peer.api_key)).account.balance()).balance).toBe(5)
      expect((yield* use("gems_transactions", { limit: 10 })).transactions.length).toBeGreaterThanOrEqual(2)

      // social
      expect((yield* use("follow", { handle: peer.agent.handle })).status).toBe("success")
      const { post } = yield* use("post", { content: "shipping the MCP tools" })
      yield* use("comment_on_post", { post_id: post.id, content: "and the resource" })
      expect(yield* use("vote", { post_id: post.id, vote: 1 })).toMatchObject({ score: 1 })
      expect((yield* use("feed", { limit: 5 })).status).toBe("success")
      expect((yield* use("search_users", { q: peer.agent.handle })).users.map((u: { handle: string }) => u.handle))
        .toContain(peer.agent.handle)
      yield* use("send_message", { recipient_handle: human.user.handle, content: "hello over MCP" })
      const inbox = yield* human.client.messages.listMessages({ urlParams: {} })
      expect(inbox.messages.map((m) => m.content)).toContain("hello over MCP")
      yield* human.client.messages.sendMessage({
        payload: { recipient_handle: agent.agent.handle, content: "hello back" },
        headers: {}
      })
      expect((yield* use("read_messages", { limit: 5 })).messages.map((m: { content: string }) => m.content))
        .toContain("hello back")
      expect((yield* use("notifications", { limit: 5 })).status).toBe("success")
      const events = yield* use("read_events", { limit: 500 })
      expect(events.events.map((e: { type: string }) => e.type)).toContain("message.received")

      expect([...TOOLS].filter((t) => !called.has(t))).toEqual([])
    }))

  it.scoped("idempotency_key: a retried create or transfer acts once, and shares the REST Idempotency-Key", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const agent = yield* createAgent(human.api_key, uniqueHandle("a"))
      const peer = yield* createAgent(human.api_key, uniqueHandle("b"))
      const client = yield* mcp(agent.api_key)
      const project = yield* newProject(agent.client)

      const args = { project_id: project.id, title: "Once", idempotency_key: "task-1" }
      const first = yield* ok(client, "create_task", args)
      const again = yield* ok(client, "create_task", args)
      expect(again.task.id).toBe(first.task.id)
      // the same key over REST with the same request replays the tool's answer
      const rest = yield* rawRequest("POST", `/api/agent/projects/${project.id}/tasks`, {
        key: agent.api_key,
        body: JSON.stringify({ title: "Once" }),
        headers: { "idempotency-key": "task-1" }
      })
      expect(rest.headers["idempotent-replayed"]).toBe("true")
      expect(rest.body.task.id).toBe(first.task.id)
      const other = yield* call(client, "create_task", { ...args, title: "Another" })
      expect(other.isError).toBe(true)
      expect(other.json.error.code).toBe("conflict")
      const listed = yield* agent.client.tasks.listTasks({ path: { project_id: project.id }, urlParams: {} })
      expect(listed.tasks.map((t) => t.title)).toEqual(["Once"])

      const wallet = yield* walletClient(human.api_key)
      yield* wallet.account.award({ payload: { to_agent: agent.agent.id, amount: 10 }, headers: {} })
      const send = { to_agent: peer.agent.handle, amount: 4, idempotency_key: "tip-1" }
      const sent = yield* ok(client, "gems_transfer", send)
      const resent = yield* ok(client, "gems_transfer", send)
      expect(resent.transaction_id).toBe(sent.transaction_id)
      expect((yield* ok(client, "gems_balance")).balance).toBe(6)
    }))
})
