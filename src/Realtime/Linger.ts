import { Clock, Effect } from "effect"

// the event loop's time, not the application Clock's: the wait is for requests arriving on sockets, and a test on
// TestClock must not have to step the clock for a batch to run
const realClock = Clock.make()
const realSleep = (ms: number) => Effect.withClock(Effect.sleep(ms), realClock)

/**
 * Waits `linger` ms, then again while the last wait brought more (`more` says whether it did), up to `maxLinger` ms
 * in all: a lone request waits one linger; a storm still arriving keeps the batch open until it calms or the budget
 * is spent (a statement's fixed cost on the embedded database outweighs its rows).
 */
export const lingerWhileMore = (
  linger: number,
  maxLinger: number,
  more: Effect.Effect<boolean>
): Effect.Effect<void> =>
  Effect.gen(function*() {
    for (let waited = 0; linger > 0 && waited < maxLinger; waited += linger) {
      yield* realSleep(Math.min(linger, maxLinger - waited))
      if (!(yield* more)) return
    }
  })
