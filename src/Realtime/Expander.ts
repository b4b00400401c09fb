import { Config, Effect, Layer } from "effect"
import { Supervisor } from "../Supervisor.js"
import { EventsRepo, FanoutsChannel } from "./EventsRepo.js"
import { Notifier } from "./Notifier.js"

/**
 * Turns committed fan-out rows (migrations/0004_event_fanouts.ts) into per-recipient events rows, EVENT_EXPAND_CHUNK
 * recipients per statement, so the embedded database's one session is never held for long. Runs at start (a crash's
 * fan-out is finished) and on each notice. Nothing waits for it: readers see the rest through the fan-out row.
 */
export const ExpanderLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* EventsRepo
    const notifier = yield* Notifier
    const supervisor = yield* Supervisor
    const chunk = yield* Config.integer("EVENT_EXPAND_CHUNK").pipe(Config.withDefault(1_000))
    const signals = yield* notifier.subscribe(FanoutsChannel)

    const drain = Effect.gen(function*() {
      while (yield* repo.expandChunk(chunk)) {
        // one chunk per turn: statements queued behind it (requests) run in between
      }
    }).pipe(
      // SqlError: retried at the next notice or poll (the fan-out row stays until it is fully expanded); a
      // defect restarts the loop, which drains first
      Effect.catchAll((e) => Effect.logWarning("fan-out expansion failed", e))
    )

    yield* Effect.forkScoped(supervisor.supervise(
      "events",
      "expander",
      Effect.forever(Effect.zipRight(drain, signals.take))
    ))
  })
).pipe(Layer.provide(EventsRepo.Default))
