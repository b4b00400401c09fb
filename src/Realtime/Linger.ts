import { Effect } from "effect"

// the event loop's time, not the application Clock's: the wait is for requests arriving on sockets, and a test on
// TestClock must not have to step the clock for a batch to run
const realSleep = (ms: number) =>
  Effect.async<void>((resume) => {
    const t = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(t))
  })

/**
 * Waits `linger` ms, then again while the last wait brought more (`more` takes what came and says whether it is
 * worth another wait), up to `maxLinger` ms in all. A lone request waits one linger; a storm still arriving keeps
 * the batch open until it calms or the budget is spent. On the embedded database a statement's fixed cost (BEGIN,
 * COMMIT, the exchange itself: milliseconds of the server's own thread) outweighs its rows, so the presence
 * announcer (src/Realtime/Announcer.ts) gathers a connect storm by this rule (bench/README.md, fanout).
 */
export const lingerWhileMore = (
  linger: number,
  maxLinger: number,
  more: Effect.Effect<boolean>
): Effect.Effect<void> => {
  const wait = (waited: number): Effect.Effect<void> =>
    linger <= 0 || waited >= maxLinger
      ? Effect.void
      : Effect.zipRight(
        realSleep(Math.min(linger, maxLinger - waited)),
        Effect.flatMap(more, (again) => again ? wait(waited + linger) : Effect.void)
      )
  return wait(0)
}
