import { expect } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Duration, Effect, Fiber, Layer, TestClock, TestContext } from "effect"
import { BountyExpiryLive, sweepExpired } from "../../src/Wallet/BountyExpiry.js"
import { failure, newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { client, configLayer, createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { usingServer } from "../support/TestDatabase.js"
import { describeWallet, walletClient, walletRaw, withInvariant } from "./support.js"

const DAY = 86_400_000

const events = (key: string) =>
  Effect.flatMap(client(key), (c) => Effect.map(c.events.poll({ urlParams: { limit: 500 } }), (r) => r.events))

/** A human owning a project, its agent assigned a task with a bounty of `bounty` Gems. */
const bountyTask = (bounty: number) =>
  Effect.gen(function*() {
    const human = yield* signUp(uniqueHandle("h"))
    const agent = yield* createAgent(human.api_key, uniqueHandle("a"))
    const project = yield* newProject(human.client, { visibility: "public" })
    const { task } = yield* human.client.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: "Bountied", assigned_to: agent.agent.handle, gem_bounty: bounty },
      headers: {}
    })
    return {
      human: { ...human, wallet: yield* walletClient(human.api_key) },
      agent: { ...agent, wallet: yield* walletClient(agent.api_key) },
      project,
      task
    }
  })

const gems = (c: { readonly client: { readonly profiles: { readonly me: () => any } } }) =>
  Effect.map(c.client.profiles.me() as Effect.Effect<{ user: { svc_gems: number; gems_escrow: number } }>, (r) => ({
    svc_gems: r.user.svc_gems,
    gems_escrow: r.user.gems_escrow
  }))

/**
 * The same tests with the wallet in this process and with the wallet reached over `@effect/rpc`. The second needs a
 * PostgreSQL server: two processes (agent API, wallet) can only share a server, never one embedded database.
 */
const modes = usingServer() ? (["in-process", "rpc"] as const) : (["in-process"] as const)

for (const mode of modes) {
  describeWallet({}, mode)(`bounties (${mode})`, (it) => {
    it.effect("escrow → pending → earned: fund on create, complete, approve by the project's human owner", () =>
      withInvariant(Effect.gen(function*() {
        const { agent, human, task } = yield* bountyTask(300)
        expect(task.gem_bounty).toBe(300)
        expect(yield* gems(human)).toEqual({ svc_gems: 0, gems_escrow: 300 })
        expect(yield* human.wallet.account.balance()).toMatchObject({ balance: 0, pending: 300 })

        const done = yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        expect(done).toMatchObject({ status: "pending_approval", gem_bounty: 300 })
        expect(yield* gems(human)).toEqual({ svc_gems: 0, gems_escrow: 0 })
        expect(yield* gems(agent)).toEqual({ svc_gems: 0, gems_escrow: 300 })
        expect(yield* agent.wallet.account.balance()).toMatchObject({ balance: 0, pending: 300 })
        const pending = (yield* events(agent.api_key)).filter((e) => e.type === "gems.pending")
        expect(pending.map((e) => e.data)).toEqual([{ amount: 300, task_id: task.id }])
        // a retried completion moves nothing more
        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        expect(yield* gems(agent)).toEqual({ svc_gems: 0, gems_escrow: 300 })

        // the agent (a participant, not the owner) cannot approve; update cannot skip approval
        expect(
          (yield* failure(agent.client.tasks.approveTask({ path: { task_id: task.id }, payload: {}, headers: {} })))
            ._tag
        ).toBe("Forbidden")
        expect(
          (yield* failure(
            agent.client.tasks.updateTask({ path: { task_id: task.id }, payload: { status: "pending" } })
          ))
            ._tag
        ).toBe("Conflict")

        const approved = yield* human.client.tasks.approveTask({
          path: { task_id: task.id },
          payload: {},
          headers: { "idempotency-key": `ap-${task.id}` }
        })
        expect(approved).toMatchObject({ task_status: "completed", gem_bounty: 300 })
        expect(approved.task.status).toBe("completed")
        expect(yield* gems(agent)).toEqual({ svc_gems: 300, gems_escrow: 0 })
        expect(yield* agent.wallet.account.balance()).toMatchObject({ balance: 300, pending: 0, lifetime_earned: 300 })
        const [tx] = (yield* agent.wallet.account.transactions({ urlParams: {} })).transactions
        expect(tx).toMatchObject({ type: "earned", amount: 300, source: "task_completion", reference_id: task.id })
        const earned = (yield* events(agent.api_key)).filter((e) => e.type === "gems.earned")
        expect(earned.map((e) => e.data)).toEqual([{ amount: 300, source: "task_completion", task_id: task.id }])

        // the same key replays; a second approval without it is a 409 and pays nothing
        const replay = yield* human.client.tasks.approveTask({
          path: { task_id: task.id },
          payload: {},
          headers: { "idempotency-key": `ap-${task.id}` }
        })
        expect(replay).toEqual(approved)
        expect(
          (yield* failure(human.client.tasks.approveTask({ path: { task_id: task.id }, payload: {}, headers: {} })))
            ._tag
        ).toBe("Conflict")
        expect((yield* agent.wallet.account.balance()).balance).toBe(300)
        // the earned Gems spend like any others
        yield* agent.wallet.account.redeem({ payload: { feature_id: "priority_queue_7d", confirm: true }, headers: {} })
        expect((yield* agent.wallet.account.balance()).balance).toBe(200)
      })))

    it.effect("reject: back to in_progress and the Gems back in the funder's escrow; then approve pays once", () =>
      withInvariant(Effect.gen(function*() {
        const { agent, human, task } = yield* bountyTask(80)
        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        const rejected = yield* human.client.tasks.rejectTask({
          path: { task_id: task.id },
          payload: { note: "tests missing" },
          headers: {}
        })
        expect(rejected).toMatchObject({ task_status: "in_progress", gem_bounty: 80 })
        expect(yield* gems(agent)).toEqual({ svc_gems: 0, gems_escrow: 0 })
        expect(yield* gems(human)).toEqual({ svc_gems: 0, gems_escrow: 80 })
        const detail = yield* human.client.tasks.getTask({ path: { task_id: task.id } })
        expect(detail.task.comments.map((c) => c.content)).toEqual(["rejected: tests missing"])
        expect(
          (yield* failure(human.client.tasks.rejectTask({ path: { task_id: task.id }, payload: {}, headers: {} })))
            ._tag
        ).toBe("Conflict")
        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        yield* human.client.tasks.approveTask({ path: { task_id: task.id }, payload: {}, headers: {} })
        expect(yield* gems(agent)).toEqual({ svc_gems: 80, gems_escrow: 0 })
        expect(yield* gems(human)).toEqual({ svc_gems: 0, gems_escrow: 0 })
      })))

    it.effect("cancel or archive burns the bounty, from escrow or from pending", () =>
      withInvariant(Effect.gen(function*() {
        const one = yield* bountyTask(50)
        const cancelled = yield* one.human.client.tasks.updateTask({
          path: { task_id: one.task.id },
          payload: { status: "cancelled" }
        })
        expect(cancelled.task).toMatchObject({ status: "cancelled", gem_bounty: 0 })
        expect(yield* gems(one.human)).toEqual({ svc_gems: 0, gems_escrow: 0 })

        const two = yield* bountyTask(70)
        yield* two.agent.client.tasks.completeTask({ path: { task_id: two.task.id }, payload: {} })
        expect(yield* gems(two.agent)).toEqual({ svc_gems: 0, gems_escrow: 70 })
        yield* two.human.client.tasks.updateTask({ path: { task_id: two.task.id }, payload: { status: "archived" } })
        expect(yield* gems(two.agent)).toEqual({ svc_gems: 0, gems_escrow: 0 })
        expect(
          (yield* failure(two.human.client.tasks.approveTask({
            path: { task_id: two.task.id },
            payload: {},
            headers: {}
          })))._tag
        ).toBe("Conflict")
      })))

    it.effect("gem_bounty: humans only (403 for an agent); changed while in escrow, 0 removes it, 409 after completion", () =>
      withInvariant(Effect.gen(function*() {
        const { agent, human, project, task } = yield* bountyTask(100)
        const byAgent = yield* failure(agent.client.tasks.createTask({
          path: { project_id: project.id },
          payload: { title: "agent bounty", gem_bounty: 10 },
          headers: {}
        }))
        expect(byAgent._tag).toBe("Forbidden")
        expect(
          (yield* failure(agent.client.tasks.updateTask({ path: { task_id: task.id }, payload: { gem_bounty: 5 } })))
            ._tag
        ).toBe("Forbidden")
        const bad = yield* walletRaw("GET", "/api/gems/balance", { key: human.api_key })
        expect(bad.body.pending).toBe(100)

        const up = yield* human.client.tasks.updateTask({ path: { task_id: task.id }, payload: { gem_bounty: 250 } })
        expect(up.task.gem_bounty).toBe(250)
        expect(yield* gems(human)).toEqual({ svc_gems: 0, gems_escrow: 250 })
        const down = yield* human.client.tasks.updateTask({ path: { task_id: task.id }, payload: { gem_bounty: 40 } })
        expect(down.task.gem_bounty).toBe(40)
        expect(yield* gems(human)).toEqual({ svc_gems: 0, gems_escrow: 40 })
        const none = yield* human.client.tasks.updateTask({ path: { task_id: task.id }, payload: { gem_bounty: 0 } })
        expect(none.task.gem_bounty).toBe(0)
        expect(yield* gems(human)).toEqual({ svc_gems: 0, gems_escrow: 0 })
        // without a bounty the task completes outright
        expect((yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })).status).toBe(
          "completed"
        )

        const other = yield* bountyTask(30)
        yield* other.agent.client.tasks.completeTask({ path: { task_id: other.task.id }, payload: {} })
        const late = yield* failure(
          other.human.client.tasks.updateTask({ path: { task_id: other.task.id }, payload: { gem_bounty: 60 } })
        )
        expect(late._tag).toBe("Conflict")
        expect(yield* gems(other.agent)).toEqual({ svc_gems: 0, gems_escrow: 30 })
        for (const gem_bounty of [-1, 1.5, "10"]) {
          const res = yield* rawRequest("POST", `/api/agent/projects/${project.id}/tasks`, {
            key: human.api_key,
            body: JSON.stringify({ title: "x", gem_bounty })
          })
          expect(res.status).toBe(400)
        }
      })))

    it.effect("30 days pending without approval: the sweeper expires the Gems once, from the stored time (TestClock)", () =>
      withInvariant(Effect.gen(function*() {
        const { agent, human, task } = yield* bountyTask(120)
        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        const completedAt = Date.now()
        expect(yield* gems(agent)).toEqual({ svc_gems: 0, gems_escrow: 120 })

        yield* Effect.gen(function*() {
          // 29 days on: nothing is due
          yield* TestClock.setTime(completedAt + 29 * DAY)
          yield* sweepExpired
          expect(yield* gems(agent)).toEqual({ svc_gems: 0, gems_escrow: 120 })
          // the sweeper fiber, sweeping once a day on the test clock, expires it once it is 30 days old
          const sweeper = yield* Layer.launch(BountyExpiryLive).pipe(
            Effect.provide(configLayer({ BOUNTY_SWEEP_INTERVAL: "1 day" })),
            Effect.fork
          )
          // the clock moves on in steps, each waiting (in real time) for the sweep's database work to land
          for (let i = 0; i < 40 && (yield* gems(agent)).gems_escrow > 0; i++) {
            yield* TestClock.adjust(Duration.hours(6))
            yield* Effect.promise(() => new Promise((r) => setTimeout(r, 300)))
          }
          yield* Fiber.interrupt(sweeper)
          expect(yield* gems(agent)).toEqual({ svc_gems: 0, gems_escrow: 0 })
          // a second sweep (another process, or a restart) finds nothing more to do for it
          yield* sweepExpired
        }).pipe(Effect.provide(TestContext.TestContext))

        expect(yield* gems(agent)).toEqual({ svc_gems: 0, gems_escrow: 0 })
        expect((yield* agent.wallet.account.balance()).balance).toBe(0)
        expect(yield* gems(human)).toEqual({ svc_gems: 0, gems_escrow: 0 })
        const late = yield* failure(human.client.tasks.approveTask({
          path: { task_id: task.id as Ids.TaskId },
          payload: {},
          headers: {}
        }))
        expect(late._tag).toBe("Conflict")
        expect(late.message).toContain("expired")
      })))
  })
}
