import { Clock, Effect, Layer } from "effect"
import { Supervisor } from "../Supervisor.js"
import { RETENTION_MS } from "./Idempotency.js"
import { IdempotencyRepo } from "./IdempotencyRepo.js"

/** Forgets idempotency keys after their 24 hours, hourly. */
export const IdempotencySweeperLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* IdempotencyRepo
    const supervisor = yield* Supervisor
    const prune = Effect.flatMap(Clock.currentTimeMillis, (now) => repo.prune(now - RETENTION_MS))
    yield* supervisor.every("idempotency", "sweeper", "1 hour", prune)
  })
).pipe(Layer.provide(IdempotencyRepo.Default))
