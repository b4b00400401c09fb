import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Queue } from "effect"
import { observeDelivery, observeDeliveryAt } from "../Metrics/Metrics.js"
import { Supervisor } from "../Supervisor.js"
import { AgentHub } from "./AgentHub.js"
import { Blocks } from "./Blocks.js"
import { EventsChannel, EventsRepo } from "./EventsRepo.js"
import { Notifier } from "./Notifier.js"

const BATCH = 2_000

/**
 * Reads the outbox in cursor order after each commit notice and hands every event to the account's actor on this
 * node. Every node reads the whole stream; the database is the only shared state, so a node that restarts loses
 * nothing (its clients resume with `?after=`). A block this node emitted, next in line, is handed out from memory.
 */
export const DispatcherLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* EventsRepo
    const hub = yield* AgentHub
    const blocks = yield* Blocks
    const notifier = yield* Notifier
    const supervisor = yield* Supervisor
    const signals = yield* notifier.subscribe(EventsChannel)
    // The table is read when a notice names a block we do not hold (another node's), at a poll (a notice may have
    // been lost), when held blocks are not contiguous (a rolled-back emit or another node's block left a gap), and
    // while a read comes back full. Notices arrive in commit order, which is cursor order (the outbox's order lock).
    let unknown = true
    yield* notifier.onPayload((payload) => {
      // "<first cursor> <salt>" (the salt tells this node's blocks still being committed from another node's)
      const [lo, salt] = payload?.split(" ") ?? []
      if (lo === undefined || !blocks.committed(Number(lo), salt)) unknown = true
    })
    // a block whose notice came before the commit's answer is handed out when it arrives
    blocks.onArrival(() => notifier.wake(EventsChannel))

    // the position starts at the head (no rows handed out): sockets replay what is older from the table
    hub.deliver([], yield* Effect.orDie(repo.head))

    const clock = yield* Effect.clock
    const pump: Effect.Effect<void, SqlError> = Effect.gen(function*() {
      let full = false
      while (true) {
        const block = blocks.takeAt(hub.position() + 1)
        if (block !== undefined) {
          hub.deliverBlock(block)
          observeDeliveryAt(block.createdAt, clock.unsafeCurrentTimeMillis())
          continue
        }
        if (blocks.takeLost()) unknown = true
        // a gap before held blocks: one of ours still arriving (its commit answers out of order) fills it, and
        // wakes this pump; otherwise a rolled-back emit or another node's events are in it
        if (!full && !unknown && (!blocks.pendingCommitted() || blocks.arriving())) break
        // cleared before the read: a notice arriving during it sets it again, for the next pump
        unknown = false
        const rows = yield* repo.after(hub.position(), BATCH).pipe(
          // nothing was delivered from a failed read: the next pump reads again
          Effect.tapErrorCause(() => Effect.sync(() => (unknown = true)))
        )
        if (rows.length > 0) hub.deliver(rows, rows[rows.length - 1]!.cursor)
        observeDelivery(rows, clock.unsafeCurrentTimeMillis())
        full = rows.length === BATCH
        if (!full) break
      }
      blocks.prune(hub.position())
    })

    // a failed read (SqlError) is retried at the next notice (or poll): nothing is lost, the position did not move
    const pumpOrWarn = Effect.catchAll(pump, (e) => Effect.logWarning("event dispatch failed", e))
    // a defect restarts the loop, which pumps first: the notice its predecessor took may not have been served
    yield* Effect.forkScoped(supervisor.supervise(
      "dispatcher",
      "events",
      Effect.forever(Effect.zipRight(pumpOrWarn, Queue.take(signals)))
    ))
  })
).pipe(Layer.provide(EventsRepo.Default))
