import { Clock, Effect, Layer, Schedule } from "effect"
import { Supervisor } from "../Supervisor.js"
import { RETENTION_MS } from "./Idempotency.js"
import { IdempotencyRepo } from "./IdempotencyRepo.js"

/** Forgets idempotency keys after their 24 hours, hourly. */
export const IdempotencySweeperLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const repo = yield* IdempotencyRepo
    const supervisor = yield* Supervisor
    const prune = Effect.flatMap(Clock.currentTimeMillis, (now) => repo.prune(now - RETENTION_MS)).pipe(
      // the database failing (SqlError): tried again in an hour; a defect restarts the loop
      Effect.catchAll((e) => Effect.logWarning("idempotency prune failed", e))
    )
    yield* Effect.forkScoped(
      supervisor.supervise("idempotency", "sweeper", prune.pipe(Effect.schedule(Schedule.spaced("1 hour"))))
    )
  })
).pipe(Layer.provide(IdempotencyRepo.Default))
