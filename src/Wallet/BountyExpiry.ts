import { SqlClient } from "@effect/sql"
import { Config, Duration, Effect, Layer } from "effect"
import { Supervisor } from "../Supervisor.js"
import { BalanceChanges } from "./BalanceChanges.js"
import { Bounties } from "./Bounties.js"

const BATCH = 100

/**
 * One sweep: pending bounties past 30 days expire, batch by batch (each batch one transaction) until none is due;
 * then stranded bounties burn (`Bounties.burnStranded`: funded ahead of a task that never came, or owed a burn).
 * Works from the stored `pending_since`, so a restart loses nothing; rows are taken `FOR UPDATE SKIP LOCKED` and
 * moved only from `pending`, so several processes sweeping at once expire each bounty once. Fails with the database's
 * `SqlError`; what committed before it stays done.
 */
export const sweepExpired = Effect.gen(function*() {
  const bounties = yield* Bounties
  const sql = yield* SqlClient.SqlClient
  const { tracked } = yield* BalanceChanges
  let total = 0
  for (const batch of [bounties.expireDue(BATCH), bounties.burnStranded(BATCH)]) {
    while (true) {
      const n = yield* batch.pipe(sql.withTransaction, tracked)
      total += n
      if (n < BATCH) break
    }
  }
  return total
})

/**
 * The sweeper fiber, under the supervisor: a sweep at start and every `BOUNTY_SWEEP_INTERVAL` (default 1 minute), on
 * the Clock. A failed sweep (the database) is tried again at the next one; a defect restarts the loop.
 */
export const BountyExpiryLive = Layer.scopedDiscard(Effect.gen(function*() {
  const every = yield* Config.duration("BOUNTY_SWEEP_INTERVAL").pipe(Config.withDefault(Duration.minutes(1)))
  const context = yield* Effect.context<Bounties | SqlClient.SqlClient | BalanceChanges>()
  const supervisor = yield* Supervisor
  yield* supervisor.every("bounties", "expiry", every, Effect.provide(sweepExpired, context), { first: 0 })
}))
