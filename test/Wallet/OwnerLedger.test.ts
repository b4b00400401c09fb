import { expect } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import { newProject } from "../Projects/support.js"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletClient, withInvariant } from "./support.js"

const rows = (list: { readonly transactions: ReadonlyArray<any> }) =>
  list.transactions.map((t) => ({ type: t.type, amount: t.amount, source: t.source, reference_id: t.reference_id }))

describeWallet()("a human's Gems transactions (CONTRACT \"Owners' ledger and reads\")", (it) => {
  it.effect("list its fundings, awards, releases and burns as spent, the kind in source; an agent's stay as they were", () =>
    withInvariant(Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const agent = yield* createAgent(human.api_key, uniqueHandle("a"))
      const wallet = yield* walletClient(human.api_key)
      const agentWallet = yield* walletClient(agent.api_key)
      const project = yield* newProject(human.client)
      const bounty = (title: string, gem_bounty: number) =>
        Effect.map(
          human.client.tasks.createTask({
            path: { project_id: project.id },
            payload: { title, assigned_to: agent.agent.handle, gem_bounty },
            headers: {}
          }),
          (r) => r.task
        )
      const complete = (id: Ids.TaskId) => agent.client.tasks.completeTask({ path: { task_id: id }, payload: {} })
      const cancel = (id: Ids.TaskId) =>
        human.client.tasks.updateTask({ path: { task_id: id }, payload: { status: "cancelled" } })

      // 155 Gems of bounties and an award of 8
      const one = yield* bounty("one", 100)
      const two = yield* bounty("two", 55)
      yield* wallet.account.award({
        payload: { to_agent: agent.agent.handle, amount: 8, reason: "thanks" },
        headers: {}
      })
      const funded = yield* wallet.account.transactions({ urlParams: {} })
      expect(rows(funded)).toEqual([
        { type: "spent", amount: 8, source: "award", reference_id: null },
        { type: "spent", amount: 55, source: "bounty_funding", reference_id: two.id },
        { type: "spent", amount: 100, source: "bounty_funding", reference_id: one.id }
      ])
      expect(funded.total).toBe(3)
      expect(funded.transactions[0]!.note).toBe("thanks")

      // approval releases one; cancelling two burns it from escrow
      yield* complete(one.id)
      yield* human.client.tasks.approveTask({ path: { task_id: one.id }, payload: {}, headers: {} })
      yield* cancel(two.id)
      // three: completed, rejected (back to escrow: still the human's bounty, not listed), completed, cancelled
      const three = yield* bounty("three", 30)
      yield* complete(three.id)
      yield* human.client.tasks.rejectTask({ path: { task_id: three.id }, payload: {}, headers: {} })
      yield* complete(three.id)
      yield* cancel(three.id)

      const all = yield* wallet.account.transactions({ urlParams: {} })
      expect(rows(all)).toEqual([
        { type: "spent", amount: 30, source: "bounty_burn", reference_id: three.id },
        { type: "spent", amount: 30, source: "bounty_funding", reference_id: three.id },
        { type: "spent", amount: 55, source: "bounty_burn", reference_id: two.id },
        { type: "spent", amount: 100, source: "bounty_release", reference_id: one.id },
        { type: "spent", amount: 8, source: "award", reference_id: null },
        { type: "spent", amount: 55, source: "bounty_funding", reference_id: two.id },
        { type: "spent", amount: 100, source: "bounty_funding", reference_id: one.id }
      ])
      expect(all).toMatchObject({ total: 7, limit: 50, offset: 0 })

      // limit/offset page through the same list
      const page = yield* wallet.account.transactions({ urlParams: { limit: 2, offset: 3 } })
      expect(rows(page)).toEqual(rows(all).slice(3, 5))
      expect(page).toMatchObject({ total: 7, limit: 2, offset: 3 })
      const past = yield* wallet.account.transactions({ urlParams: { limit: 2, offset: 10 } })
      expect(past).toMatchObject({ transactions: [], total: 7 })

      // the agent's own list: what reached its balance, as before
      expect(rows(yield* agentWallet.account.transactions({ urlParams: {} }))).toEqual([
        { type: "earned", amount: 100, source: "task_completion", reference_id: one.id },
        { type: "earned", amount: 8, source: "award", reference_id: null }
      ])
    })))

  it.effect("a lowered or removed bounty is a burn; another human's movements are not listed", () =>
    withInvariant(Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const other = yield* signUp(uniqueHandle("h"))
      const wallet = yield* walletClient(human.api_key)
      const project = yield* newProject(human.client)
      const { task } = yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "changing", gem_bounty: 60 },
        headers: {}
      })
      yield* human.client.tasks.updateTask({ path: { task_id: task.id }, payload: { gem_bounty: 90 } })
      yield* human.client.tasks.updateTask({ path: { task_id: task.id }, payload: { gem_bounty: 20 } })
      yield* human.client.tasks.updateTask({ path: { task_id: task.id }, payload: { gem_bounty: 0 } })
      expect(rows(yield* wallet.account.transactions({ urlParams: {} }))).toEqual([
        { type: "spent", amount: 20, source: "bounty_burn", reference_id: task.id },
        { type: "spent", amount: 70, source: "bounty_burn", reference_id: task.id },
        { type: "spent", amount: 30, source: "bounty_funding", reference_id: task.id },
        { type: "spent", amount: 60, source: "bounty_funding", reference_id: task.id }
      ])
      const theirs = yield* walletClient(other.api_key)
      expect(yield* theirs.account.transactions({ urlParams: {} })).toMatchObject({ transactions: [], total: 0 })
    })))
})
