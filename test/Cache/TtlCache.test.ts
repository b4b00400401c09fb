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

  it.effect("a lookup running when invalidate forgets every counter (capacity reached) does not store either", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let value = "old"
      const cache = yield* TtlCache.make({
        capacity: 1,
        ttlMillis: () => 60_000,
        lookup: (_: string) => Effect.flatMap(Effect.sync(() => value), (read) => Effect.as(Deferred.await(gate), read))
      })
      const slow = yield* Effect.fork(cache.get("k"))
      yield* Effect.yieldNow()
      value = "new"
      yield* cache.invalidate("k")
      // a second key's invalidation overflows the counters (capacity 1): they are forgotten, "k"'s with them
      yield* cache.invalidate("other")
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(slow)).toBe("old")
      expect(yield* cache.get("k")).toBe("new")
    }))

  it.effect("recheck: an entry in use outlives its TTL without a lookup, a stale one goes, an idle one expires", () =>
    Effect.gen(function*() {
      const loads: Array<string> = []
      const cache = yield* TtlCache.make({
        capacity: 10,
        ttlMillis: () => 1_000,
        lookup: (k: string) => Effect.sync(() => (loads.push(k), `${k}${loads.length}`))
      })
      const revoked = new Set<string>()
      const checked: Array<ReadonlyArray<string>> = []
      const recheck = cache.recheck(2, 500, (entries) =>
        Effect.sync(() => {
          checked.push(entries.map(([k]) => k))
          return new Set(entries.flatMap(([k]) => revoked.has(k) ? [k] : []))
        }))
      for (const k of ["busy", "idle", "gone"]) yield* cache.get(k)
      expect(loads).toEqual(["busy", "idle", "gone"])

      // 800 ms on: "busy" and "gone" are read, "gone" is revoked behind the cache's back, "idle" was not read
      yield* TestClock.adjust("800 millis")
      yield* cache.get("busy")
      yield* cache.get("gone")
      revoked.add("gone")
      yield* recheck
      expect(checked).toEqual([["busy", "gone"]])
      // at 1.5 s the TTL of the first reads has passed: "busy" was confirmed at 800 ms and lives on
      yield* TestClock.adjust("700 millis")
      expect(yield* cache.get("busy")).toBe("busy1")
      expect(yield* cache.get("idle")).toBe("idle4")
      expect(yield* cache.get("gone")).toBe("gone5")
      expect(loads).toEqual(["busy", "idle", "gone", "idle", "gone"])
      // the confirmation is only as good as its TTL: unconfirmed since 800 ms, "busy" is read again at 1.8 s
      yield* TestClock.adjust("300 millis")
      expect(yield* cache.get("busy")).toBe("busy6")
    }))

  it.effect("awaitUse: after a recheck, waits for the next read or store of an entry", () =>
    Effect.gen(function*() {
      const cache = yield* TtlCache.make({
        capacity: 10,
        ttlMillis: () => 60_000,
        lookup: (k: string) => Effect.succeed(k)
      })
      yield* cache.get("k")
      yield* cache.get("k")
      // read since the start: no wait
      yield* cache.awaitUse
      yield* cache.recheck(10, 60_000, () => Effect.succeed(new Set<string>()))
      const waiting = yield* Effect.fork(cache.awaitUse)
      yield* Effect.yieldNow()
      expect(waiting.unsafePoll()).toBeNull()
      yield* cache.get("k")
      yield* Fiber.join(waiting)
      // a miss counts too: keys that all come back after their TTL are never hits, and must still be renewed
      yield* cache.recheck(10, 60_000, () => Effect.succeed(new Set<string>()))
      const again = yield* Effect.fork(cache.awaitUse)
      yield* Effect.yieldNow()
      expect(again.unsafePoll()).toBeNull()
      yield* cache.get("new")
      yield* Fiber.join(again)
    }))
})
