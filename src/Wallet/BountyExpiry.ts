import { SqlClient } from "@effect/sql"
import { Config, Duration, Effect, Layer, Schedule } from "effect"
import { BalanceChanges } from "./BalanceChanges.js"
import { Bounties } from "./Bounties.js"

const BATCH = 100

/**
 * One sweep: pending bounties past 30 days expire, batch by batch (each batch one transaction) until none is due;
 * then stranded bounties burn (`Bounties.burnStranded`).
 * Works from the stored `pending_since`, so a restart loses nothing; rows are taken `FOR UPDATE SKIP LOCKED` and
 * moved only from `pending`, so several processes sweeping at once expire each bounty once.
 */
export const sweepExpired = Effect.gen(function*() {
  const bounties = yield* Bounties
  const sql = yield* SqlClient.SqlClient
  const { tracked } = yield* BalanceChanges
  let total = 0
  while (true) {
    const n = yield* bounties.expireDue(BATCH).pipe(sql.withTransaction, Effect.orDie, tracked)
    total += n
    if (n < BATCH) break
  }
  // and bounties no task will release (src/Tasks/Bounty.ts: funded ahead of a task that never came, or owed a burn)
  while (true) {
    const n = yield* bounties.burnStranded(BATCH).pipe(sql.withTransaction, Effect.orDie, tracked)
    total += n
    if (n < BATCH) return total
  }
})

/** The sweeper fiber: a sweep at start and every `BOUNTY_SWEEP_INTERVAL` (default 1 minute), on the Clock. */
export const BountyExpiryLive = Layer.scopedDiscard(Effect.gen(function*() {
  const every = yield* Config.duration("BOUNTY_SWEEP_INTERVAL").pipe(Config.withDefault(Duration.minutes(1)))
  const context = yield* Effect.context<Bounties | SqlClient.SqlClient | BalanceChanges>()
  yield* sweepExpired.pipe(
    Effect.provide(context),
    Effect.catchAllCause((cause) => Effect.logWarning("bounty expiry sweep failed", cause)),
    Effect.repeat(Schedule.spaced(every)),
    Effect.forkScoped
  )
}))
