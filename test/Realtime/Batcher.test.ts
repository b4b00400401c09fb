import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { makeBatched, realSleep } from "../../src/Realtime/Batcher.js"

/** A batcher whose batches are recorded (their sizes, and when each ran after the start). */
const recording = (max: number, linger: number, maxLinger: number) =>
  Effect.gen(function*() {
    const t0 = performance.now()
    const batches: Array<{ size: number; at: number }> = []
    const batched = yield* makeBatched(
      (items: ReadonlyArray<number>) =>
        Effect.sync(() => {
          batches.push({ size: items.length, at: performance.now() - t0 })
          return items.map((n) => n * 2)
        }),
      max,
      Duration.millis(linger),
      Duration.millis(maxLinger)
    )
    return { batched, batches }
  })

describe("the batcher's linger", () => {
  it.live("a lone request waits one linger, then runs alone", () =>
    Effect.gen(function*() {
      const { batched, batches } = yield* recording(500, 30, 1_000)
      expect(yield* batched.request(21)).toBe(42)
      expect(batches.map((b) => b.size)).toEqual([1])
      // one linger, not the whole budget: nothing else arrived
      expect(batches[0]!.at).toBeLessThan(500)
    }).pipe(Effect.scoped))

  it.live("lingers again while requests keep arriving, never past `max` a batch", () =>
    Effect.gen(function*() {
      const { batched, batches } = yield* recording(25, 30, 2_000)
      // 60 requests over ~300 ms: each linger brings more, so they gather instead of running at the first linger
      const results = yield* Effect.forEach(
        Array.from({ length: 60 }, (_, i) => i),
        (i) => Effect.zipRight(realSleep(i * 5), batched.request(i)),
        { concurrency: "unbounded" }
      )
      expect(results).toEqual(Array.from({ length: 60 }, (_, i) => i * 2))
      expect(batches.every((b) => b.size <= 25)).toBe(true)
      expect(batches.reduce((n, b) => n + b.size, 0)).toBe(60)
      // full batches rather than one per linger's worth (~6 requests)
      expect(batches.length).toBeLessThanOrEqual(4)
    }).pipe(Effect.scoped))

  it.live("a burst landing in a later linger fills the batch to `max`, no further", () =>
    Effect.gen(function*() {
      const { batched, batches } = yield* recording(25, 30, 2_000)
      // one request, five more within the first linger, then forty at once within the second
      const arrivals = [0, ...Array(5).fill(10), ...Array(40).fill(45)] as Array<number>
      yield* Effect.forEach(arrivals, (at, i) => Effect.zipRight(realSleep(at), batched.request(i)), {
        concurrency: "unbounded"
      })
      // [25, 21] on time; a loaded machine may move the burst to another linger, never past `max`
      expect(Math.max(...batches.map((b) => b.size))).toBeLessThanOrEqual(25)
      expect(batches.reduce((n, b) => n + b.size, 0)).toBe(46)
    }).pipe(Effect.scoped))
})
