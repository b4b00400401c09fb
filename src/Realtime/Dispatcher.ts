import { Effect, Layer, Option, Queue } from "effect"
import { Pglite } from "../Database/PgliteClient.js"
import { AgentHub } from "./AgentHub.js"
import { Blocks } from "./Blocks.js"
import { blockRows } from "./EventRow.js"
import { EventsChannel, EventsRepo } from "./EventsRepo.js"
import { Notifier } from "./Notifier.js"

const BATCH = 2_000

/**
 * Reads the outbox in cursor order after each commit notice and hands every event to the account's entry on
 * this node. Every node reads the whole stream and keeps what its own sockets need; the database is the only
 * shared state, so a node that restarts loses nothing (its clients resume with `?after=`). A committed block this
 * node emitted itself, when it is next in line, is handed out from memory instead of being read back.
 */
export const DispatcherLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* EventsRepo
    const hub = yield* AgentHub
    const blocks = yield* Blocks
    const notifier = yield* Notifier
    const signals = yield* notifier.subscribe(EventsChannel)
    // embedded, every commit is this process's and announces its block: the table needs reading only when a
    // notice names a block we do not hold, or blocks are not contiguous (a rolled-back emit left a gap)
    const embedded = Option.isSome(yield* Effect.serviceOption(Pglite))
    let unknown = true
    yield* notifier.onPayload((payload) => {
      if (!blocks.committed(Number(payload))) unknown = true
    })

    yield* hub.start(yield* Effect.orDie(repo.head))

    const pump: Effect.Effect<void> = Effect.gen(function*() {
      while (true) {
        const block = blocks.takeAt(hub.position() + 1)
        if (block !== undefined) {
          hub.deliver(blockRows(block), block.hi)
          continue
        }
        if (embedded && !unknown && !blocks.pendingCommitted()) break
        const rows = yield* Effect.orDie(repo.after(hub.position(), BATCH))
        unknown = false
        if (rows.length > 0) hub.deliver(rows, rows[rows.length - 1]!.cursor)
        if (rows.length < BATCH) break
      }
      blocks.prune(hub.position())
    })

    yield* Queue.take(signals).pipe(
      Effect.zipRight(pump),
      // a failed read is retried at the next notice (or poll): nothing is lost, the position did not move
      Effect.catchAllCause((cause) => Effect.logWarning("event dispatch failed", cause)),
      Effect.forever,
      Effect.forkScoped
    )
  })
).pipe(Layer.provide(EventsRepo.Default))
