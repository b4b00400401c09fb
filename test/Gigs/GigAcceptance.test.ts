import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { failure, newProject } from "../Projects/support.js"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletClient, withInvariant } from "../Wallet/support.js"

/** A human's public project with a gig of `bounty` Gems, and two agents of another human who applied for it. */
const gigWithApplicants = (bounty: number) =>
  Effect.gen(function*() {
    const owner = yield* signUp(uniqueHandle("h"))
    const other = yield* signUp(uniqueHandle("o"))
    const a = yield* createAgent(other.api_key, uniqueHandle("a"))
    const b = yield* createAgent(other.api_key, uniqueHandle("b"))
    const project = yield* newProject(owner.client, { visibility: "public" })
    const { task } = yield* owner.client.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: "gig", gem_bounty: bounty },
      headers: {}
    })
    const apply = (c: typeof a) =>
      Effect.map(
        c.client.gigs.applyGig({ path: { task_id: task.id }, payload: {}, headers: {} }),
        (r) => r.application.id
      )
    return { owner, a, b, task, fromA: yield* apply(a), fromB: yield* apply(b) }
  })

const escrow = (key: string) =>
  Effect.flatMap(walletClient(key), (w) => Effect.map(w.account.balance(), (r) => r.pending))

describeWallet()("a gig accepts no application once cancelled, completed or assigned (409)", (it) => {
  it.effect("accepting on a cancelled gig is a 409: the task stays unassigned, its burned Gems stay burned", () =>
    withInvariant(Effect.gen(function*() {
      const g = yield* gigWithApplicants(40)
      yield* g.owner.client.tasks.updateTask({ path: { task_id: g.task.id }, payload: { status: "cancelled" } })
      expect(yield* escrow(g.owner.api_key)).toBe(0)
      const e = yield* failure(
        g.owner.client.gigs.acceptApplication({ path: { task_id: g.task.id, application_id: g.fromA } })
      )
      expect(e._tag).toBe("Conflict")
      const task = (yield* g.owner.client.tasks.getTask({ path: { task_id: g.task.id } })).task
      expect(task).toMatchObject({ status: "cancelled", assigned_to_id: null })
      expect(yield* escrow(g.a.api_key)).toBe(0)
    })))

  it.effect("accepting on a completed (or archived) gig is a 409", () =>
    withInvariant(Effect.gen(function*() {
      const g = yield* gigWithApplicants(30)
      // a bounty task completes through approval; the owner archives this one (burning its escrow)
      yield* g.owner.client.tasks.updateTask({ path: { task_id: g.task.id }, payload: { status: "archived" } })
      const e = yield* failure(
        g.owner.client.gigs.acceptApplication({ path: { task_id: g.task.id, application_id: g.fromB } })
      )
      expect(e._tag).toBe("Conflict")
      // without a bounty left the task is done as a plain one: completed, still no acceptance
      yield* g.owner.client.tasks.updateTask({ path: { task_id: g.task.id }, payload: { status: "completed" } })
      const again = yield* failure(
        g.owner.client.gigs.acceptApplication({ path: { task_id: g.task.id, application_id: g.fromB } })
      )
      expect(again._tag).toBe("Conflict")
      expect((yield* g.owner.client.tasks.getTask({ path: { task_id: g.task.id } })).task.assigned_to_id).toBeNull()
    })))

  it.effect("accepting a second application on an assigned gig is a 409; the first assignee keeps it", () =>
    withInvariant(Effect.gen(function*() {
      const g = yield* gigWithApplicants(20)
      yield* g.owner.client.gigs.acceptApplication({ path: { task_id: g.task.id, application_id: g.fromA } })
      const e = yield* failure(
        g.owner.client.gigs.acceptApplication({ path: { task_id: g.task.id, application_id: g.fromB } })
      )
      expect(e._tag).toBe("Conflict")
      const task = (yield* g.owner.client.tasks.getTask({ path: { task_id: g.task.id } })).task
      expect(task.assigned_to_id).toBe(g.a.agent.id)
      expect(yield* escrow(g.owner.api_key)).toBe(20)
    })))
})
