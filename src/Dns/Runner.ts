import { Effect, Fiber, FiberId, Runtime, Schedule } from "effect"
import { Supervisor } from "../Supervisor.js"

/**
 * Runs one query's answer as a fiber owned by the server's scope. Most complete synchronously, so only those still
 * running are tracked, their deadlines kept by one sweeper: a per-query `Effect.timeout` (a forked race and a
 * timer) cost two thirds of the throughput in bench/dns.ts.
 */
export const makeRunner = <R>(options: {
  /** A query still unanswered after this long (a slow lookup) gets `onTimeout` instead. */
  readonly timeoutMs: number
  /** Queries waiting on a lookup at once; beyond this new ones are turned away. */
  readonly maxPending: number
}) =>
  Effect.gen(function*() {
    const runFork = Runtime.runFork(yield* Effect.runtime<R>())
    const supervisor = yield* Supervisor
    const clock = yield* Effect.clock
    // the live clock's nanoseconds are monotonic; its milliseconds follow the wall clock
    const now = () => Number(clock.unsafeCurrentTimeNanos() / 1_000_000n)
    const pending = new Map<Fiber.RuntimeFiber<void>, { readonly at: number; readonly onTimeout: () => void }>()
    yield* Effect.addFinalizer(() => Fiber.interruptAll(Array.from(pending.keys())))

    const sweep = Effect.sync(() => {
      const t = now()
      // insertion order is start order, so the first one still in time ends the sweep
      for (const [fiber, entry] of pending) {
        if (t - entry.at < options.timeoutMs) break
        pending.delete(fiber)
        fiber.unsafeInterruptAsFork(FiberId.none)
        entry.onTimeout()
      }
    })
    // a defect (an `onTimeout` that threw) restarts the sweep: the deadlines it keeps are in `pending`
    yield* Effect.forkScoped(supervisor.supervise(
      "dns",
      "deadlines",
      Effect.repeat(sweep, Schedule.spaced(Math.max(10, Math.floor(options.timeoutMs / 4))))
    ))

    /** False when the server is too busy to take it. */
    const run = (effect: Effect.Effect<void, never, R>, onTimeout: () => void): boolean => {
      if (pending.size >= options.maxPending) return false
      const fiber = runFork(effect)
      if (fiber.unsafePoll() === null) {
        pending.set(fiber, { at: now(), onTimeout })
        fiber.addObserver(() => pending.delete(fiber))
      }
      return true
    }
    return { run }
  })

export type Runner<R> = Effect.Effect.Success<ReturnType<typeof makeRunner<R>>>
