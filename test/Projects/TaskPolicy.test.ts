import { expect } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import { call, mcp } from "../Mcp/support.js"
import { rawRequest } from "../support/Raw.js"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletClient, withInvariant } from "../Wallet/support.js"
import { type Client, failure, newProject } from "./support.js"

/**
 * Who may do what with a task (CONTRACT "Who may do what"), issue 40 rows 1–6: a funder (human) owning a public
 * project and its agent (the worker, assignee of the bounty tasks); another human and its agent, both plain members
 * of that project; a stranger. Each refusal is checked over REST and, for rows 1–3, over `/mcp`, and the Gems are
 * read back through the wallet API: where they were.
 */
const cast = Effect.gen(function*() {
  const funder = yield* signUp(uniqueHandle("f"))
  const worker = yield* createAgent(funder.api_key, uniqueHandle("w"))
  const other = yield* signUp(uniqueHandle("o"))
  const member = yield* createAgent(other.api_key, uniqueHandle("m"))
  const stranger = yield* signUp(uniqueHandle("s"))
  const project = yield* newProject(funder.client, { visibility: "public" })
  for (const handle of [worker.agent.handle, member.agent.handle, other.user.handle]) {
    yield* funder.client.projects.addParticipant({ path: { project_id: project.id }, payload: { handle } })
  }
  // the other human's own project, where its agent takes part
  const theirs = yield* newProject(other.client)
  yield* other.client.projects.addParticipant({
    path: { project_id: theirs.id },
    payload: { handle: member.agent.handle }
  })
  return { funder, worker, other, member, stranger, project, theirs }
})

const bountyTask = (funder: Client, project: Ids.ProjectId, gem_bounty: number, assigned_to?: string) =>
  Effect.map(
    funder.tasks.createTask({
      path: { project_id: project },
      payload: { title: `bounty ${gem_bounty}`, gem_bounty, ...(assigned_to ? { assigned_to } : {}) },
      headers: {}
    }),
    (r) => r.task
  )

/** Everyone's Gems (a human's escrow shows as its `pending`), read through the wallet API. */
const gems = (...keys: ReadonlyArray<string>) =>
  Effect.forEach(
    keys,
    (key) =>
      Effect.flatMap(walletClient(key), (w) =>
        Effect.map(w.account.balance(), (b) => ({ balance: b.balance, pending: b.pending })))
  )

const keysOf = (c: Effect.Effect.Success<typeof cast>) => [c.funder.api_key, c.worker.api_key, c.member.api_key]

describeWallet()("who may do what with a task", (it) => {
  it.scoped("only the assignee completes a task: another member gets a 403 (REST and MCP), the Gems stay", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      const task = yield* bountyTask(c.funder.client, c.project.id, 70, c.worker.agent.handle)
      const before = yield* gems(...keysOf(c))
      const rest = yield* failure(c.member.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} }))
      expect(rest._tag).toBe("Forbidden")
      const viaMcp = yield* call(yield* mcp(c.member.api_key), "complete_task", { task_id: task.id })
      expect(viaMcp.isError).toBe(true)
      expect(viaMcp.json.error.code).toBe("forbidden")
      expect(yield* gems(...keysOf(c))).toEqual(before)
      expect((yield* c.funder.client.tasks.getTask({ path: { task_id: task.id } })).task.status).toBe("pending")
      // the assignee does
      const done = yield* c.worker.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      expect(done.status).toBe("pending_approval")
      expect((yield* gems(c.worker.api_key))[0]).toEqual({ balance: 0, pending: 70 })
    })))

  it.scoped("an unassigned gig is taken only through apply → accept: completing it is a 409 'apply first'", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      const gig = yield* bountyTask(c.funder.client, c.project.id, 50)
      const before = yield* gems(...keysOf(c), c.stranger.api_key)
      for (const who of [c.member, c.stranger]) {
        const rest = yield* failure(who.client.tasks.completeTask({ path: { task_id: gig.id }, payload: {} }))
        expect(rest._tag).toBe("Conflict")
        expect(rest.message).toMatch(/apply first/)
        const viaMcp = yield* call(yield* mcp(who.api_key), "complete_task", { task_id: gig.id })
        expect(viaMcp.isError).toBe(true)
        expect(viaMcp.json.error.code).toBe("conflict")
        expect(viaMcp.json.error.message).toMatch(/apply first/)
      }
      // nor taken with assign_to: "me"
      const take = yield* failure(
        c.member.client.tasks.updateTask({ path: { task_id: gig.id }, payload: { assign_to: "me" } })
      )
      expect(take._tag).toBe("Forbidden")
      expect(yield* gems(...keysOf(c), c.stranger.api_key)).toEqual(before)
      const task = (yield* c.funder.client.tasks.getTask({ path: { task_id: gig.id } })).task
      expect(task).toMatchObject({ status: "pending", assigned_to_id: null, gem_bounty: 50 })
    })))

  it.scoped("a member cannot take another agent's bounty task with assigned_to: \"me\" (REST and MCP)", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      const task = yield* bountyTask(c.funder.client, c.project.id, 70, c.worker.agent.handle)
      const before = yield* gems(...keysOf(c))
      const rest = yield* failure(
        c.member.client.tasks.updateTask({ path: { task_id: task.id }, payload: { assigned_to: "me" } })
      )
      expect(rest._tag).toBe("Forbidden")
      const viaMcp = yield* call(yield* mcp(c.member.api_key), "update_task", { task_id: task.id, assigned_to: "me" })
      expect(viaMcp.isError).toBe(true)
      expect(viaMcp.json.error.code).toBe("forbidden")
      const complete = yield* failure(c.member.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} }))
      expect(complete._tag).toBe("Forbidden")
      expect(yield* gems(...keysOf(c))).toEqual(before)
      expect((yield* c.funder.client.tasks.getTask({ path: { task_id: task.id } })).task.assigned_to_id).toBe(
        c.worker.agent.id
      )
      // its assignee's OpenClaw channel sends assign_to: "me" with each status update: a no-op assignment, a 200
      const own = yield* rawRequest("POST", `/api/agent/tasks/${task.id}/update`, {
        key: c.worker.api_key,
        body: JSON.stringify({ status: "in_progress", assign_to: "me" })
      })
      expect(own.status).toBe(200)
      expect(own.body.task).toMatchObject({ status: "in_progress", assigned_to_id: c.worker.agent.id })
      expect(yield* gems(...keysOf(c))).toEqual(before)
    })))

  it.scoped("a bounty stays with its funder: no move out by a member (REST and MCP); only the funder approves", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      const task = yield* bountyTask(c.funder.client, c.project.id, 90, c.worker.agent.handle)
      const before = yield* gems(...keysOf(c))
      const moved = yield* failure(c.member.client.tasks.updateTask({
        path: { task_id: task.id },
        payload: { project_id: c.theirs.id, assigned_to: "me" }
      }))
      expect(moved._tag).toBe("Forbidden")
      const viaMcp = yield* call(yield* mcp(c.member.api_key), "update_task", {
        task_id: task.id,
        project_id: c.theirs.id
      })
      expect(viaMcp.isError).toBe(true)
      expect(viaMcp.json.error.code).toBe("forbidden")
      // the project's owner, the funder, cannot move it into a project it takes part in but does not own: 409
      yield* c.other.client.projects.addParticipant({
        path: { project_id: c.theirs.id },
        payload: { handle: c.funder.user.handle }
      })
      const notOwned = yield* failure(
        c.funder.client.tasks.updateTask({ path: { task_id: task.id }, payload: { project_id: c.theirs.id } })
      )
      expect(notOwned._tag).toBe("Conflict")
      expect(yield* gems(...keysOf(c))).toEqual(before)
      const still = (yield* c.funder.client.tasks.getTask({ path: { task_id: task.id } })).task
      expect(still.project_id).toBe(c.project.id)

      // completed by its assignee; the other human (a participant too) cannot approve nor reject
      yield* c.worker.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      const pending = yield* gems(...keysOf(c))
      for (const decide of ["approveTask", "rejectTask"] as const) {
        const e = yield* failure(c.other.client.tasks[decide]({ path: { task_id: task.id }, payload: {}, headers: {} }))
        expect(e._tag).toBe("Forbidden")
      }
      expect(yield* gems(...keysOf(c))).toEqual(pending)
      expect((yield* gems(c.worker.api_key))[0]).toEqual({ balance: 0, pending: 90 })
      yield* c.funder.client.tasks.approveTask({ path: { task_id: task.id }, payload: {}, headers: {} })
      expect((yield* gems(c.worker.api_key))[0]).toEqual({ balance: 90, pending: 0 })
    })))

  it.effect("the funder moves its bounty task into a project it owns (its agent's too)", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      const task = yield* bountyTask(c.funder.client, c.project.id, 30)
      const agentsProject = yield* newProject(c.worker.client)
      const moved = yield* c.funder.client.tasks.updateTask({
        path: { task_id: task.id },
        payload: { project_id: agentsProject.id }
      })
      expect(moved.task).toMatchObject({ project_id: agentsProject.id, gem_bounty: 30 })
      expect((yield* gems(c.funder.api_key))[0]).toEqual({ balance: 0, pending: 30 })
    })))

  it.effect("tasks/move: a plain member gets a 403; bounty tasks stay unless their funder moves them", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      for (const title of ["a", "b"]) {
        yield* c.funder.client.tasks.createTask({ path: { project_id: c.project.id }, payload: { title }, headers: {} })
      }
      yield* bountyTask(c.funder.client, c.project.id, 40)
      const before = yield* gems(...keysOf(c))
      const e = yield* failure(c.member.client.projects.moveTasks({
        path: { project_id: c.project.id },
        payload: { target_project_id: c.theirs.id }
      }))
      expect(e._tag).toBe("Forbidden")
      const list = yield* c.funder.client.tasks.listTasks({ path: { project_id: c.project.id }, urlParams: {} })
      expect(list.tasks.length).toBe(3)
      // the owner (the funder) into a project it does not own: the bounty task holds them all back
      const owned = yield* newProject(c.other.client)
      yield* c.other.client.projects.addParticipant({
        path: { project_id: owned.id },
        payload: { handle: c.funder.user.handle }
      })
      const held = yield* failure(c.funder.client.projects.moveTasks({
        path: { project_id: c.project.id },
        payload: { target_project_id: owned.id }
      }))
      expect(held._tag).toBe("Conflict")
      expect(yield* gems(...keysOf(c))).toEqual(before)
      // into its own project: all three move, the bounty with them
      const mine = yield* newProject(c.funder.client)
      const moved = yield* c.funder.client.projects.moveTasks({
        path: { project_id: c.project.id },
        payload: { target_project_id: mine.id }
      })
      expect(moved.moved_count).toBe(3)
      expect(yield* gems(...keysOf(c))).toEqual(before)
    })))

  it.scoped("a bounty awaiting approval is cancelled or archived by its funder only; the response names the burn", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      const task = yield* bountyTask(c.funder.client, c.project.id, 60, c.worker.agent.handle)
      yield* c.worker.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      const before = yield* gems(...keysOf(c))
      for (const who of [c.member, c.worker, c.other]) {
        for (const status of ["cancelled", "archived"] as const) {
          const e = yield* failure(who.client.tasks.updateTask({ path: { task_id: task.id }, payload: { status } }))
          expect(e._tag).toBe("Forbidden")
          const viaMcp = yield* call(yield* mcp(who.api_key), "update_task", { task_id: task.id, status })
          expect(viaMcp.isError).toBe(true)
          expect(viaMcp.json.error.code).toBe("forbidden")
        }
      }
      expect(yield* gems(...keysOf(c))).toEqual(before)
      expect((yield* gems(c.worker.api_key))[0]).toEqual({ balance: 0, pending: 60 })
      const cancelled = yield* rawRequest("POST", `/api/agent/tasks/${task.id}/update`, {
        key: c.funder.api_key,
        body: JSON.stringify({ status: "cancelled" })
      })
      expect(cancelled.status).toBe(200)
      expect(cancelled.body.bounty).toEqual({ amount: 60, outcome: "burned" })
      expect(cancelled.body.task).toMatchObject({ status: "cancelled", gem_bounty: 0 })
      expect((yield* gems(c.worker.api_key))[0]).toEqual({ balance: 0, pending: 0 })
    })))

  it.scoped("the assignee works on its bounty task but cannot burn it: cancelling it in escrow is refused (REST, MCP)", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      const task = yield* bountyTask(c.funder.client, c.project.id, 45, c.member.agent.handle)
      const before = yield* gems(...keysOf(c))
      const progress = yield* c.member.client.tasks.updateTask({
        path: { task_id: task.id },
        payload: { status: "in_progress" }
      })
      expect(progress.task.status).toBe("in_progress")
      const rest = yield* failure(
        c.member.client.tasks.updateTask({ path: { task_id: task.id }, payload: { status: "cancelled" } })
      )
      expect(rest._tag).toBe("Forbidden")
      const viaMcp = yield* call(yield* mcp(c.member.api_key), "update_task", { task_id: task.id, status: "archived" })
      expect(viaMcp.json.error.code).toBe("forbidden")
      expect(yield* gems(...keysOf(c))).toEqual(before)
      expect((yield* c.funder.client.tasks.getTask({ path: { task_id: task.id } })).task.gem_bounty).toBe(45)
    })))

  it.effect("assigning, cancelling and archiving others' tasks are the managers'; a member works on its own", () =>
    withInvariant(Effect.gen(function*() {
      const c = yield* cast
      const path = (id: Ids.TaskId) => ({ task_id: id })
      const theirs = (yield* c.funder.client.tasks.createTask({
        path: { project_id: c.project.id },
        payload: { title: "the worker's", assigned_to: c.worker.agent.handle },
        headers: {}
      })).task
      for (
        const payload of [{ assigned_to: c.member.agent.handle }, { status: "cancelled" as const }, {
          status: "in_progress" as const
        }, { assigned_to_id: null }]
      ) {
        const e = yield* failure(c.member.client.tasks.updateTask({ path: path(theirs.id), payload }))
        expect(e._tag).toBe("Forbidden")
      }
      // an unassigned task without a bounty: a member takes it, and the OpenClaw channel's status updates (which
      // carry assign_to: "me" every time) keep working
      const open = (yield* c.funder.client.tasks.createTask({
        path: { project_id: c.project.id },
        payload: { title: "open" },
        headers: {}
      })).task
      for (const status of ["in_progress", "review", "in_progress"] as const) {
        const r = yield* rawRequest("POST", `/api/agent/tasks/${open.id}/update`, {
          key: c.member.api_key,
          body: JSON.stringify({ status, assign_to: "me" })
        })
        expect(r.status).toBe(200)
        expect(r.body.task).toMatchObject({ status, assigned_to_id: c.member.agent.id })
      }
      const viaMcp = yield* Effect.scoped(
        Effect.flatMap(
          mcp(c.member.api_key),
          (m) => call(m, "update_task", { task_id: open.id, status: "review", assign_to: "me" })
        )
      )
      expect(viaMcp.isError).toBeFalsy()
      // the owner's human reassigns it; the member then no longer changes it
      yield* c.funder.client.tasks.updateTask({ path: path(open.id), payload: { assigned_to: c.worker.agent.handle } })
      const after = yield* failure(c.member.client.tasks.updateTask({
        path: path(open.id),
        payload: { status: "in_progress", assign_to: "me" }
      }))
      expect(after._tag).toBe("Forbidden")
      // a bounty task in escrow cancelled by its project's owner: the response says the Gems burned
      const bounty = yield* bountyTask(c.funder.client, c.project.id, 25)
      const cancelled = yield* c.funder.client.tasks.updateTask({
        path: path(bounty.id),
        payload: { status: "cancelled" }
      })
      expect(cancelled.bounty).toEqual({ amount: 25, outcome: "burned" })
      expect((yield* gems(c.funder.api_key))[0]).toEqual({ balance: 0, pending: 0 })
    })))
})
