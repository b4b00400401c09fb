import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import * as Invalidating from "../../src/Cache/Invalidating.js"

describe("Invalidating cache", () => {
  it.effect("serves hits until the TTL, shares concurrent misses, and reloads after expiry", () =>
    Effect.gen(function*() {
      let loads = 0
      const cache = yield* Invalidating.make({
        capacity: 10,
        timeToLive: () => "1 second",
        lookup: (k: string) => Effect.sync(() => `${k}${++loads}`).pipe(Effect.delay("10 millis"))
      })
      const fibers = yield* Effect.all([cache.get("a"), cache.get("a"), cache.get("a")], { concurrency: "unbounded" })
        .pipe(Effect.fork)
      yield* TestClock.adjust("10 millis")
      expect(yield* Fiber.join(fibers)).toEqual(["a1", "a1", "a1"])
      expect(yield* cache.get("a")).toBe("a1")
      yield* TestClock.adjust("2 seconds")
      const again = yield* Effect.fork(cache.get("a"))
      yield* TestClock.adjust("10 millis")
      expect(yield* Fiber.join(again)).toBe("a2")
    }))

  // reads first, answers once the gate opens: the shape of a query that overlaps a write
  const gated = (gate: Deferred.Deferred<void>, read: () => string) => (_: string) =>
    Effect.flatMap(Effect.sync(read), (value) => Effect.as(Deferred.await(gate), value))

  it.effect("a lookup overtaken by invalidate reads again: neither its callers nor the cache keep the old value", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let value = "old"
      const cache = yield* Invalidating.make({
        capacity: 10,
        timeToLive: () => "1 minute",
        lookup: gated(gate, () => value)
      })
      const slow = yield* Effect.fork(cache.get("k"))
      yield* Effect.yieldNow()
      value = "new"
      yield* cache.invalidate("k")
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(slow)).toBe("new")
      value = "newer, unseen: the entry is cached"
      expect(yield* cache.get("k")).toBe("new")
    }))

  it.effect("the same when the invalidation overflowed the counters (capacity reached) and forgot them", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let value = "old"
      const cache = yield* Invalidating.make({
        capacity: 1,
        timeToLive: () => "1 minute",
        lookup: gated(gate, () => value)
      })
      const slow = yield* Effect.fork(cache.get("k"))
      yield* Effect.yieldNow()
      value = "new"
      yield* cache.invalidate("other")
      yield* cache.invalidate("k")
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(slow)).toBe("new")
      expect(yield* cache.get("k")).toBe("new")
    }))

  it.effect("a failed lookup is not kept", () =>
    Effect.gen(function*() {
      let calls = 0
      const cache = yield* Invalidating.make({
        capacity: 10,
        timeToLive: () => "1 minute",
        lookup: (_: string) => Effect.suspend(() => ++calls === 1 ? Effect.dieMessage("boom") : Effect.succeed(calls))
      })
      expect((yield* Effect.exit(cache.get("k")))._tag).toBe("Failure")
      yield* TestClock.adjust("1 millis")
      expect(yield* cache.get("k")).toBe(2)
    }))

  it.effect("a hit is the value read until invalidate or its time to live, also past capacity", () =>
    Effect.gen(function*() {
      let loads = 0
      const cache = yield* Invalidating.make({
        capacity: 2,
        timeToLive: (v: string) => v.startsWith("short") ? "1 second" : "1 minute",
        lookup: (k: string) => Effect.sync(() => `${k}${++loads}`)
      })
      expect(yield* cache.get("a")).toBe("a1")
      expect(yield* cache.get("a")).toBe("a1")
      yield* cache.invalidate("a")
      expect(yield* cache.get("a")).toBe("a2")
      // more keys than the capacity: the oldest is read again, never answered from a forgotten read
      expect(yield* cache.get("b")).toBe("b3")
      expect(yield* cache.get("c")).toBe("c4")
      expect(yield* cache.get("c")).toBe("c4")
      expect(yield* cache.get("a")).toBe("a5")
      expect(yield* cache.get("short")).toBe("short6")
      yield* TestClock.adjust("999 millis")
      expect(yield* cache.get("short")).toBe("short6")
      yield* TestClock.adjust("2 millis")
      expect(yield* cache.get("short")).toBe("short7")
    }))
})
