import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { lingerWhileMore } from "../../src/Realtime/Linger.js"

/** How long lingerWhileMore waited (real ms) and how often it asked, when `answers` say whether more came. */
const timed = (linger: number, maxLinger: number, answers: ReadonlyArray<boolean>) =>
  Effect.gen(function*() {
    let asked = 0
    const t0 = performance.now()
    yield* lingerWhileMore(linger, maxLinger, Effect.sync(() => answers[asked++] ?? false))
    return { waited: performance.now() - t0, asked }
  })

describe("lingerWhileMore", () => {
  it.live("a lone request waits one linger, not the whole budget", () =>
    Effect.gen(function*() {
      const { asked, waited } = yield* timed(30, 1_000, [false])
      expect(asked).toBe(1)
      expect(waited).toBeGreaterThanOrEqual(25)
      expect(waited).toBeLessThan(500)
    }))

  it.live("lingers again while each wait brought more, and stops when one brings nothing", () =>
    Effect.gen(function*() {
      const { asked, waited } = yield* timed(20, 2_000, [true, true, true, false])
      expect(asked).toBe(4)
      expect(waited).toBeGreaterThanOrEqual(75)
    }))

  it.live("never past maxLinger in all, however much keeps coming", () =>
    Effect.gen(function*() {
      const { asked } = yield* timed(20, 50, Array(100).fill(true))
      // 20 + 20 + the 10 left of the budget
      expect(asked).toBe(3)
    }))
})
