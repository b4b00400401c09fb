import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletRaw, withInvariant } from "./support.js"

// The transfer's fast lane (src/Wallet/Lane.ts) takes exactly `POST /api/gems/transfer`; the same call with a query
// string goes down the general path (router, HttpApi, middleware, the idempotency wrapper), so the two can be
// compared on one server: status, header names, body, and what each wrote to the ledger and the outbox.
type Raw = Effect.Effect.Success<ReturnType<typeof walletRaw>>

const headerNames = (r: Raw) => [...r.headers.keys()].filter((h) => h !== "date").sort()
const remaining = (r: Raw) => Number(r.headers.get("ratelimit-remaining"))

// each key's last `ratelimit-remaining`: a call counted twice (a lane handing a started call to the general path)
// would take two; the bucket refills meanwhile, so a call may also seem to take none
const last = new Map<string, number>()
const countedOnce = (key: string, r: Raw) => {
  const before = last.get(key)
  if (before !== undefined) expect(before - remaining(r)).toBeLessThanOrEqual(1)
  last.set(key, remaining(r))
}

/** The call down the lane, then the same call down the general path: same answer, each call counted once. */
const both = (key: string, body: unknown) =>
  Effect.gen(function*() {
    const lane = yield* walletRaw("POST", "/api/gems/transfer", { key, body })
    countedOnce(key, lane)
    const general = yield* walletRaw("POST", "/api/gems/transfer?general", { key, body })
    countedOnce(key, general)
    expect(lane.status).toBe(general.status)
    expect(headerNames(lane)).toEqual(headerNames(general))
    expect(lane.headers.get("content-type")).toBe(general.headers.get("content-type"))
    return { lane, general }
  })

/** What a ledger transaction wrote: its row, its entries (user, amount) and the recipient's event. */
const effects = (transactionId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [t] = yield* sql<{ source: string; actor_id: string; reference_id: string | null; note: string | null }>`
      SELECT source, actor_id, reference_id, note FROM gem_transactions WHERE id = ${transactionId}`
    const entries = yield* sql<{ user_id: string; kind: string; amount: string }>`
      SELECT a.user_id, a.kind, e.amount::text AS amount FROM gem_entries e JOIN gem_accounts a ON a.id = e.account_id
      WHERE e.transaction_id = ${transactionId} ORDER BY e.amount`
    return { transaction: t, entries }
  }).pipe(Effect.orDie)

const events = (recipient: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ type: string; data: unknown }>`SELECT type, data FROM events WHERE recipient_id = ${recipient}
      ORDER BY cursor`
  ).pipe(Effect.orDie)

describeWallet({ RATE_LIMIT_PER_MINUTE: "1000" })("the transfer's fast lane", (it) => {
  it.effect("answers and writes what the general path does: success, every refusal, each call counted once", () =>
    withInvariant(Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const [a, b] = yield* Effect.all([createAgent(human.api_key), createAgent(human.api_key)])
      yield* walletRaw("POST", "/api/gems/award", { key: human.api_key, body: { to_agent: a!.agent.id, amount: 100 } })

      // success: the same body but the transaction id and the balances, which move by the amount each time
      const ok = yield* both(a!.api_key, { to_agent: b!.agent.handle, amount: 7, note: "thanks 'n \\ $1" })
      expect(ok.lane.status).toBe(200)
      const { transaction_id: laneTx, ...laneBody } = ok.lane.body
      const { transaction_id: generalTx, ...generalBody } = ok.general.body
      expect(laneTx).not.toBe(generalTx)
      expect({
        ...generalBody,
        new_balance: generalBody.new_balance + 7,
        recipient_balance: generalBody.recipient_balance - 7
      })
        .toEqual(laneBody)
      expect(laneBody).toMatchObject({ status: "success", amount: 7, to_agent: b!.agent.id, new_balance: 93 })
      // the same ledger transaction and entries, and one gems.earned each, in the same transaction as its write
      const [laneEffects, generalEffects] = yield* Effect.all([effects(laneTx), effects(generalTx)])
      expect(laneEffects).toEqual(generalEffects)
      expect(laneEffects.entries.map((e) => [e.user_id, e.amount])).toEqual([[a!.agent.id, "-7"], [b!.agent.id, "7"]])
      const earned = (yield* events(b!.agent.id)).filter((e) => e.type === "gems.earned")
      expect(earned.length).toBe(2)
      expect(earned[0]).toEqual(earned[1])

      // refusals answered by the lane after the key check, and those it leaves to the general path
      const refusals: Array<[string, unknown, number, string]> = [
        [a!.api_key, { to_agent: b!.agent.id, amount: 5_000 }, 422, "unprocessable"],
        [a!.api_key, { to_agent: a!.agent.handle, amount: 1 }, 422, "unprocessable"],
        [a!.api_key, { to_agent: human.user.handle, amount: 1 }, 422, "unprocessable"],
        [a!.api_key, { to_agent: "nobody-here-at-all", amount: 1 }, 404, "not_found"],
        [human.api_key, { to_agent: b!.agent.id, amount: 1 }, 403, "forbidden"],
        [a!.api_key, { to_agent: b!.agent.id, amount: 0 }, 400, "invalid_request"],
        [a!.api_key, { to_agent: b!.agent.id, amount: 1, balance: 1e9 }, 400, "invalid_request"],
        [a!.api_key, { to_agent: b!.agent.id, amount: 1.5 }, 400, "invalid_request"]
      ]
      for (const [key, body, status, code] of refusals) {
        const { general, lane } = yield* both(key, body)
        expect([lane.status, lane.body.error.code]).toEqual([status, code])
        expect(lane.body).toEqual(general.body)
      }
      // nothing but the two transfers moved: a's balance after them
      const balance = yield* walletRaw("GET", "/api/gems/balance", { key: a!.api_key })
      expect(balance.body.balance).toBe(86)

      // without a key, or with an unknown one: the general path's 401
      const none = yield* walletRaw("POST", "/api/gems/transfer", { body: { to_agent: b!.agent.id, amount: 1 } })
      const unknown = yield* walletRaw("POST", "/api/gems/transfer", {
        key: "sk_nope",
        body: { to_agent: b!.agent.id, amount: 1 }
      })
      for (const r of [none, unknown]) expect([r.status, r.body.error.code]).toEqual([401, "unauthorized"])
    })))

  it.effect("a transfer with an Idempotency-Key goes down the general path: replayed exactly", () =>
    withInvariant(Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const [a, b] = yield* Effect.all([createAgent(human.api_key), createAgent(human.api_key)])
      yield* walletRaw("POST", "/api/gems/award", { key: human.api_key, body: { to_agent: a!.agent.id, amount: 10 } })
      const send = walletRaw("POST", "/api/gems/transfer", {
        key: a!.api_key,
        body: { to_agent: b!.agent.id, amount: 4 },
        headers: { "idempotency-key": "lane-key-1" }
      })
      const first = yield* send
      const again = yield* send
      expect(first.status).toBe(200)
      expect(again.body).toEqual(first.body)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      const balance = yield* walletRaw("GET", "/api/gems/balance", { key: a!.api_key })
      expect(balance.body.balance).toBe(6)
    })))
})
