import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { failure } from "../Projects/support.js"
import { client, createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletClient, walletRaw, withInvariant } from "./support.js"

const events = (key: string) =>
  Effect.flatMap(client(key), (c) => Effect.map(c.events.poll({ urlParams: { limit: 500 } }), (r) => r.events))

/** A human with two agents, each with a wallet client. */
const family = Effect.gen(function*() {
  const human = yield* signUp(uniqueHandle("h"))
  const a = yield* createAgent(human.api_key, uniqueHandle("a"))
  const b = yield* createAgent(human.api_key, uniqueHandle("b"))
  return {
    human: { ...human, wallet: yield* walletClient(human.api_key) },
    a: { ...a, wallet: yield* walletClient(a.api_key) },
    b: { ...b, wallet: yield* walletClient(b.api_key) }
  }
})

describeWallet()("wallet", (it) => {
  it.effect("a new agent's balance is all zeros; /api/agent/me shows svc_gems 0", () =>
    withInvariant(Effect.gen(function*() {
      const { a } = yield* family
      const bal = yield* a.wallet.account.balance()
      expect(bal).toMatchObject({ agent_id: a.agent.id, balance: 0, pending: 0, lifetime_earned: 0, lifetime_spent: 0 })
      const list = yield* a.wallet.account.transactions({ urlParams: {} })
      expect(list).toMatchObject({ transactions: [], total: 0, limit: 50, offset: 0 })
    })))

  it.effect("award: a human mints Gems into an agent's balance, with gems.earned and a transaction", () =>
    withInvariant(Effect.gen(function*() {
      const { a, human } = yield* family
      const res = yield* human.wallet.account.award({
        payload: { to_agent: a.agent.handle.toUpperCase(), amount: 120, reason: "great work", reference_id: "r-1" },
        headers: {}
      })
      expect(res).toMatchObject({ amount: 120, new_balance: 120, to_agent: a.agent.id })
      // by user id too
      yield* human.wallet.account.award({ payload: { to_agent: a.agent.id, amount: 5 }, headers: {} })
      const bal = yield* a.wallet.account.balance()
      expect(bal).toMatchObject({ balance: 125, pending: 0, lifetime_earned: 125, lifetime_spent: 0 })
      const list = yield* a.wallet.account.transactions({ urlParams: { limit: 1 } })
      expect(list.total).toBe(2)
      expect(list.transactions).toHaveLength(1)
      expect(list.transactions[0]).toMatchObject({ type: "earned", amount: 5, source: "award" })
      const older = yield* a.wallet.account.transactions({ urlParams: { limit: 1, offset: 1 } })
      expect(older.transactions[0]).toMatchObject({
        id: res.transaction_id,
        type: "earned",
        amount: 120,
        source: "award",
        reference_id: "r-1",
        note: "great work"
      })
      const earned = (yield* events(a.api_key)).filter((e) => e.type === "gems.earned")
      expect(earned.map((e) => e.data)).toEqual([
        { amount: 120, source: "award", task_id: null },
        { amount: 5, source: "award", task_id: null }
      ])
      const me = yield* a.client.profiles.me()
      expect(me.user).toMatchObject({ svc_gems: 125, gems_escrow: 0 })
    })))

  it.effect("award: 403 for an agent, 422 to a human, 404 for nobody, 400 for a non-positive amount", () =>
    withInvariant(Effect.gen(function*() {
      const { a, b, human } = yield* family
      expect(
        (yield* failure(a.wallet.account.award({ payload: { to_agent: b.agent.handle, amount: 1 }, headers: {} })))
          ._tag
      ).toBe("Forbidden")
      const other = yield* signUp(uniqueHandle("h"))
      expect(
        (yield* failure(
          human.wallet.account.award({ payload: { to_agent: other.user.handle, amount: 1 }, headers: {} })
        ))
          ._tag
      ).toBe("Unprocessable")
      expect(
        (yield* failure(human.wallet.account.award({ payload: { to_agent: "nobody-q-z", amount: 1 }, headers: {} })))
          ._tag
      ).toBe("NotFound")
      for (const amount of [0, -3, 1.5, "7"]) {
        const res = yield* walletRaw("POST", "/api/gems/award", {
          key: human.api_key,
          body: { to_agent: a.agent.handle, amount }
        })
        expect(res.status).toBe(400)
        expect(res.body.error.code).toBe("invalid_request")
      }
      expect((yield* a.wallet.account.balance()).balance).toBe(0)
    })))

  it.effect("transfer: agent to agent moves Gems; insufficient, to a human, to itself → 422; from a human → 403", () =>
    withInvariant(Effect.gen(function*() {
      const { a, b, human } = yield* family
      yield* human.wallet.account.award({ payload: { to_agent: a.agent.handle, amount: 50 }, headers: {} })
      const res = yield* a.wallet.account.transfer({
        payload: { to_agent: b.agent.handle, amount: 20, note: "thanks" },
        headers: {}
      })
      expect(res).toMatchObject({ amount: 20, new_balance: 30, recipient_balance: 20, to_agent: b.agent.id })
      const too = yield* failure(
        a.wallet.account.transfer({ payload: { to_agent: b.agent.handle, amount: 31 }, headers: {} })
      )
      expect(too._tag).toBe("Unprocessable")
      expect(too.message).toContain("insufficient")
      expect(
        (yield* failure(
          a.wallet.account.transfer({ payload: { to_agent: human.user.handle, amount: 1 }, headers: {} })
        ))
          ._tag
      ).toBe("Unprocessable")
      expect(
        (yield* failure(a.wallet.account.transfer({ payload: { to_agent: a.agent.handle, amount: 1 }, headers: {} })))
          ._tag
      ).toBe("Unprocessable")
      expect(
        (yield* failure(human.wallet.account.transfer({ payload: { to_agent: b.agent.id, amount: 1 }, headers: {} })))
          ._tag
      ).toBe("Forbidden")
      expect(yield* a.wallet.account.balance()).toMatchObject({ balance: 30, lifetime_earned: 50, lifetime_spent: 20 })
      expect(yield* b.wallet.account.balance()).toMatchObject({ balance: 20, lifetime_earned: 20 })
      const [sent] = (yield* a.wallet.account.transactions({ urlParams: {} })).transactions
      expect(sent).toMatchObject({ id: res.transaction_id, type: "spent", amount: 20, source: "tip", note: "thanks" })
      const [got] = (yield* b.wallet.account.transactions({ urlParams: {} })).transactions
      expect(got).toMatchObject({ id: res.transaction_id, type: "earned", amount: 20, source: "tip" })
      const earned = (yield* events(b.api_key)).filter((e) => e.type === "gems.earned")
      expect(earned.map((e) => e.data)).toEqual([{ amount: 20, source: "tip", task_id: null }])
    })))

  it.effect("Idempotency-Key on award, transfer and redeem: replayed with the same answer, once in the ledger", () =>
    withInvariant(Effect.gen(function*() {
      const { a, b, human } = yield* family
      const award = { to_agent: a.agent.handle, amount: 400 }
      const first = yield* walletRaw("POST", "/api/gems/award", {
        key: human.api_key,
        body: award,
        headers: { "idempotency-key": "aw-1" }
      })
      const again = yield* walletRaw("POST", "/api/gems/award", {
        key: human.api_key,
        body: award,
        headers: { "idempotency-key": "aw-1" }
      })
      expect(first.status).toBe(200)
      expect(again.status).toBe(200)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.body).toEqual(first.body)
      const other = yield* walletRaw("POST", "/api/gems/award", {
        key: human.api_key,
        body: { ...award, amount: 401 },
        headers: { "idempotency-key": "aw-1" }
      })
      expect(other.status).toBe(409)

      const transfer = { to_agent: b.agent.handle, amount: 100 }
      const t1 = yield* walletRaw("POST", "/api/gems/transfer", {
        key: a.api_key,
        body: transfer,
        headers: { "idempotency-key": "tr-1" }
      })
      const t2 = yield* walletRaw("POST", "/api/gems/transfer", {
        key: a.api_key,
        body: transfer,
        headers: { "idempotency-key": "tr-1" }
      })
      expect(t1.status).toBe(200)
      expect(t2.headers.get("idempotent-replayed")).toBe("true")
      expect(t2.body.transaction_id).toBe(t1.body.transaction_id)

      const redeem = { feature_id: "priority_queue_7d", confirm: true }
      const r1 = yield* walletRaw("POST", "/api/gems/redeem", {
        key: a.api_key,
        body: redeem,
        headers: { "idempotency-key": "rd-1" }
      })
      const r2 = yield* walletRaw("POST", "/api/gems/redeem", {
        key: a.api_key,
        body: redeem,
        headers: { "idempotency-key": "rd-1" }
      })
      expect(r1.status).toBe(200)
      expect(r2.headers.get("idempotent-replayed")).toBe("true")
      expect(r2.body).toEqual(r1.body)
      // 400 awarded once, 100 sent once, 100 spent once
      expect(yield* a.wallet.account.balance()).toMatchObject({
        balance: 200,
        lifetime_earned: 400,
        lifetime_spent: 200
      })
      expect((yield* b.wallet.account.balance()).balance).toBe(100)
    })))

  it.effect("redeem: confirm required (400), too few Gems (422), gems.spent, extends a timed feature, permanent once", () =>
    withInvariant(Effect.gen(function*() {
      const { a, human } = yield* family
      for (const body of [{ feature_id: "priority_queue_7d" }, { feature_id: "priority_queue_7d", confirm: false }]) {
        const res = yield* walletRaw("POST", "/api/gems/redeem", { key: a.api_key, body })
        expect(res.status).toBe(400)
      }
      const unknown = yield* walletRaw("POST", "/api/gems/redeem", {
        key: a.api_key,
        body: { feature_id: "free_lunch", confirm: true }
      })
      expect(unknown.status).toBe(400)
      const poor = yield* failure(
        a.wallet.account.redeem({ payload: { feature_id: "verified_badge", confirm: true }, headers: {} })
      )
      expect(poor._tag).toBe("Unprocessable")
      yield* human.wallet.account.award({ payload: { to_agent: a.agent.id, amount: 1_300 }, headers: {} })
      const one = yield* a.wallet.account.redeem({
        payload: { feature_id: "priority_queue_7d", confirm: true },
        headers: {}
      })
      expect(one).toMatchObject({ feature: "priority_queue_7d", duration_days: 7, cost: 100, new_balance: 1_200 })
      const two = yield* a.wallet.account.redeem({
        payload: { feature_id: "priority_queue_7d", confirm: true },
        headers: {}
      })
      const days = (new Date(two.expires_at!).getTime() - new Date(one.expires_at!).getTime()) / 86_400_000
      expect(Math.round(days)).toBe(7)
      const badge = yield* a.wallet.account.redeem({
        payload: { feature_id: "verified_badge", confirm: true },
        headers: {}
      })
      expect(badge).toMatchObject({ duration_days: null, expires_at: null, cost: 1_000, new_balance: 100 })
      const twice = yield* failure(
        a.wallet.account.redeem({ payload: { feature_id: "verified_badge", confirm: true }, headers: {} })
      )
      expect(twice._tag).toBe("Conflict")
      expect(yield* a.wallet.account.balance()).toMatchObject({ balance: 100, lifetime_spent: 1_200 })
      const spent = (yield* events(a.api_key)).filter((e) => e.type === "gems.spent").map((e) => e.data)
      expect(spent).toEqual([
        { amount: 100, feature_id: "priority_queue_7d" },
        { amount: 100, feature_id: "priority_queue_7d" },
        { amount: 1_000, feature_id: "verified_badge" }
      ])
      const list = yield* a.wallet.account.transactions({ urlParams: {} })
      expect(list.transactions[0]).toMatchObject({ type: "spent", source: "redeem", amount: 1_000 })
    })))
})
