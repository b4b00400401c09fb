import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import * as TtlCache from "../../src/Cache/TtlCache.js"

describe("TtlCache", () => {
  it.effect("serves hits until the TTL, shares concurrent misses, and reloads after expiry", () =>
    Effect.gen(function*() {
      let loads = 0
      const cache = yield* TtlCache.make({
        capacity: 10,
        ttlMillis: () => 1_000,
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

  it.effect("a lookup that began before invalidate does not store the value it read", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let value = "old"
      const cache = yield* TtlCache.make({
        capacity: 10,
        ttlMillis: () => 60_000,
        // reads first, answers later: the shape of a query that overlaps a write
        lookup: (_: string) => Effect.flatMap(Effect.sync(() => value), (read) => Effect.as(Deferred.await(gate), read))
      })
      const slow = yield* Effect.fork(cache.get("k"))
      yield* Effect.yieldNow()
      // a write lands and invalidates while the read is in flight
      value = "new"
      yield* cache.invalidate("k")
      const fresh = yield* Effect.fork(cache.get("k"))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(slow)).toBe("old")
      expect(yield* Fiber.join(fresh)).toBe("new")
      expect(yield* cache.get("k")).toBe("new")
    }))
})
