import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletRaw, withInvariant } from "./support.js"

const ACCOUNTS = 50
const TRANSFERS = Number(process.env.WALLET_TRANSFERS ?? 1_000)
const START = 200

/** A small deterministic generator, so a failing run can be replayed. */
const rng = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff
  return seed / 0x7fffffff
}

// 1,000 requests at once queue behind one embedded database: on a loaded machine the last waits longer than the
// deadlines that turn a stuck request into a 503 (tested in test/Database and test/Http). This test is about the
// ledger under concurrency, so its deadlines are long enough for the whole queue, and write admission is off: 1,000
// writes arriving over a second or more, faster than the ledger applies them, are the standing queue it sheds
// (src/Edge/WriteAdmission.ts, test/Http/Overload.test.ts).
describeWallet({
  RATE_LIMIT_PER_MINUTE: "1000000",
  HTTP_HANDLER_TIMEOUT: "5 minutes",
  DATABASE_TIMEOUT: "5 minutes",
  WRITE_CONCURRENCY: "0",
  // 1,000 requests at once from one address: past the per-address connection cap (1,000) some would be reset
  HTTP_MAX_CONNECTIONS_PER_IP: "0",
  // fetch keeps the 1,000 sockets for later calls and drops an idle one a second before the server's keep-alive
  // ends, by a coarse timer: on a loaded machine a reused socket could meet the server's close (ECONNRESET, seen in
  // grouped runs); within this test no idle socket reaches this
  HTTP_KEEP_ALIVE_TIMEOUT: "2 minutes"
})(
  "wallet under concurrency",
  (it) => {
    it.effect(
      "1,000 concurrent transfers over 50 accounts, 10% with a duplicated Idempotency-Key: no negative balance, no Gem lost or duplicated, every duplicate replayed",
      () =>
        withInvariant(Effect.gen(function*() {
          const human = yield* signUp(uniqueHandle("h"))
          const agents = yield* Effect.forEach(
            Array.from({ length: ACCOUNTS }, (_, i) => i),
            () => createAgent(human.api_key, uniqueHandle("c")),
            { concurrency: 10 }
          )
          yield* Effect.forEach(agents, (a) =>
            walletRaw("POST", "/api/gems/award", {
              key: human.api_key,
              body: { to_agent: a.agent.id, amount: START }
            }), { concurrency: 10 })

          const random = rng(19)
          const pick = () => Math.floor(random() * ACCOUNTS)
          // 900 distinct requests, then 100 of them sent again with the same key and body, all shuffled together
          const originals = Array.from({ length: TRANSFERS * 0.9 }, (_, i) => {
            const from = pick()
            let to = pick()
            if (to === from) to = (to + 1) % ACCOUNTS
            // some transfers are larger than a balance can be: those are refused, never half-applied
            const amount = random() < 0.05 ? 5_000 : 1 + Math.floor(random() * 40)
            return { i, from, to, amount, key: `k-${i}` }
          })
          const duplicates = Array.from({ length: TRANSFERS * 0.1 }, (_, j) => originals[(j * 9) % originals.length]!)
          const requests = [...originals, ...duplicates]
            .map((r) => ({ r, order: random() }))
            .sort((x, y) => x.order - y.order)
            .map((x) => x.r)

          const started = Date.now()
          const results = yield* Effect.forEach(requests, (r) =>
            Effect.map(
              walletRaw("POST", "/api/gems/transfer", {
                key: agents[r.from]!.api_key,
                body: { to_agent: agents[r.to]!.agent.handle, amount: r.amount },
                headers: { "idempotency-key": r.key }
              }),
              (res) => ({
                r,
                status: res.status,
                replayed: res.headers.get("idempotent-replayed") === "true",
                body: res.body
              })
            ), { concurrency: "unbounded" })

          console.log(`${requests.length} transfers in ${Date.now() - started} ms`)
          for (const res of results) expect([200, 422]).toContain(res.status)
          // the applied transfers are the distinct transaction ids; a key that succeeded is applied once and replayed
          const byKey = new Map<string, Array<typeof results[number]>>()
          for (const res of results) byKey.set(res.r.key, [...(byKey.get(res.r.key) ?? []), res])
          const applied = new Map<string, typeof results[number]>()
          let replays = 0
          for (const [key, answers] of byKey) {
            const ok = answers.filter((a) => a.status === 200)
            const fresh = ok.filter((a) => !a.replayed)
            expect(fresh.length).toBeLessThanOrEqual(1)
            if (fresh.length === 1) {
              applied.set(key, fresh[0]!)
              for (const again of ok.filter((a) => a.replayed)) {
                replays++
                expect(again.body).toEqual(fresh[0]!.body)
              }
            }
            if (answers.length === 2 && ok.length > 0) expect(ok.length).toBe(2)
          }
          // the duplicate queues behind the original in the caller's account actor, so every successful original
          // is replayed to its duplicate
          const duplicatedKeys = new Set(duplicates.map((d) => d.key))
          const succeededDuplicated = [...duplicatedKeys].filter((k) => applied.has(k)).length
          expect(replays).toBe(succeededDuplicated)
          expect(replays).toBeGreaterThan(duplicates.length * 0.8)

          // expected balances from the applied transfers alone
          const expected = Array.from({ length: ACCOUNTS }, () => START)
          for (const a of applied.values()) {
            expected[a.r.from]! -= a.r.amount
            expected[a.r.to]! += a.r.amount
          }
          const balances = yield* Effect.forEach(agents, (a) =>
            Effect.map(walletRaw("GET", "/api/gems/balance", { key: a.api_key }), (res) =>
              res.body.balance as number))
          expect(balances).toEqual(expected)
          expect(Math.min(...balances)).toBeGreaterThanOrEqual(0)
          expect(balances.reduce((s, b) =>
            s + b, 0)).toBe(ACCOUNTS * START)
          // every refused transfer was one its sender could not afford at that moment
          const refused = results.filter((r) => r.status === 422)
          for (const r of refused) expect(r.body.error.message).toContain("insufficient")
          expect(refused.length).toBeGreaterThan(0)
          expect(applied.size).toBeGreaterThan(originals.length * 0.7)
        })),
      { timeout: 300_000 }
    )
  }
)
