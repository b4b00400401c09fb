import { Config, Effect, Layer, Schedule } from "effect"
import { Supervisor } from "../Supervisor.js"
import { EventsRepo } from "./EventsRepo.js"

const BATCH = 5_000

/**
 * Event retention: events older than EVENT_RETENTION_DAYS (default 30; database time) are deleted in small batches,
 * so the embedded database's single session is never held for long. Their webhook deliveries go with them.
 */
export const SweeperLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* EventsRepo
    const supervisor = yield* Supervisor
    const days = yield* Config.integer("EVENT_RETENTION_DAYS").pipe(Config.withDefault(30))
    const every = yield* Config.duration("EVENT_SWEEP_INTERVAL").pipe(Config.withDefault("1 hour"))

    const sweep = Effect.gen(function*() {
      let total = 0
      while (true) {
        const n = yield* repo.prune(days, BATCH)
        total += n
        if (n < BATCH) break
      }
      if (total > 0) yield* Effect.logInfo(`pruned ${total} events older than ${days} days`)
    }).pipe(
      // SqlError: tried again at the next interval; a defect restarts the loop
      Effect.catchAll((e) => Effect.logWarning("event retention sweep failed", e))
    )

    // the first minute once: a delay inside the repeat would lengthen every interval by it
    yield* Effect.forkScoped(supervisor.supervise(
      "events",
      "retention",
      sweep.pipe(Effect.repeat(Schedule.spaced(every)), Effect.delay("1 minute"))
    ))
  })
).pipe(Layer.provide(EventsRepo.Default))
