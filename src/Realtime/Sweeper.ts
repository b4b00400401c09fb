import { Config, Effect, Layer } from "effect"
import { Supervisor } from "../Supervisor.js"
import { EventsRepo } from "./EventsRepo.js"

const BATCH = 5_000

/** How long events are kept (EVENT_RETENTION_DAYS, default 30): the sweeper's window, and the webhook worker's. */
export const retentionDays = Config.integer("EVENT_RETENTION_DAYS").pipe(Config.withDefault(30))

/**
 * Event retention: events older than EVENT_RETENTION_DAYS (default 30; database time) are deleted in small batches,
 * so the embedded database's single session is never held for long. Their webhook deliveries go with them.
 */
export const SweeperLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* EventsRepo
    const supervisor = yield* Supervisor
    const days = yield* retentionDays
    const every = yield* Config.duration("EVENT_SWEEP_INTERVAL").pipe(Config.withDefault("1 hour"))

    const sweep = Effect.gen(function*() {
      let total = 0
      while (true) {
        const n = yield* repo.prune(days, BATCH)
        total += n
        if (n < BATCH) break
      }
      if (total > 0) yield* Effect.logInfo(`pruned ${total} events older than ${days} days`)
    })
    yield* supervisor.every("events", "retention", every, sweep, { first: "1 minute" })
  })
).pipe(Layer.provide(EventsRepo.Default))
