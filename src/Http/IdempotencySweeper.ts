import { Clock, Effect, Layer } from "effect"
import { RETENTION_MS } from "./Idempotency.js"
import { IdempotencyRepo } from "./IdempotencyRepo.js"

/** Forgets idempotency keys after their 24 hours, hourly. */
export const IdempotencySweeperLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* IdempotencyRepo
    const prune = Effect.flatMap(Clock.currentTimeMillis, (now) => repo.prune(now - RETENTION_MS)).pipe(
      Effect.catchAll((e) => Effect.logWarning("idempotency prune failed", e))
    )
    yield* prune.pipe(Effect.delay("1 hour"), Effect.forever, Effect.forkScoped)
  })
).pipe(Layer.provide(IdempotencyRepo.Default))
