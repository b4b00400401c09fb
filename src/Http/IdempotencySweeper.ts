import { Clock, Effect, Layer, Schedule } from "effect"
import { RETENTION_MS } from "./Idempotency.js"
import { IdempotencyRepo } from "./IdempotencyRepo.js"

/** Forgets idempotency keys after their 24 hours, hourly. */
export const IdempotencySweeperLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* IdempotencyRepo
    const prune = Effect.flatMap(Clock.currentTimeMillis, (now) => repo.prune(now - RETENTION_MS)).pipe(
      // a defect too: the sweep must not stop for good
      Effect.catchAllCause((cause) => Effect.logWarning("idempotency prune failed", cause))
    )
    yield* prune.pipe(Effect.schedule(Schedule.spaced("1 hour")), Effect.forkScoped)
  })
).pipe(Layer.provide(IdempotencyRepo.Default))
