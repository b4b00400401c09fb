import { expect, it } from "@effect/vitest"
import { ConfigProvider, Deferred, Effect, Fiber, Layer, TestClock } from "effect"
import { ReadCache, ReadsChannel } from "../../src/Cache/ReadCache.js"
import { Notifier } from "../../src/Realtime/Notifier.js"

/** A notifier whose commit notices the test sends itself (`notice(table)`). */
const notices = new Map<string, (payload: string) => void>()
const notice = (table: string) => notices.get(ReadsChannel)!(table)
const FakeNotifier = Layer.succeed(
  Notifier,
  Notifier.make({
    subscribe: () => Effect.die("unused"),
    onPayload: () => Effect.die("unused"),
    listen: (channel: string, f: (payload: string) => void) => Effect.sync(() => void notices.set(channel, f))
  } as any)
)
const TestCache = ReadCache.Default.pipe(
  Layer.provide(FakeNotifier),
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["READ_CACHE_TTL", "2 seconds"]]))))
)

/** A cache over `tasks` whose lookups count themselves and answer the current count. */
const counted = Effect.gen(function*() {
  let lookups = 0
  const cache = (yield* ReadCache).make<string>({ tables: ["tasks"], maxBytes: 1000, size: (v) => v.length })
  const read = (key = "k") => cache.get(key, () => Effect.sync(() => `v${++lookups}`))
  return { read, lookups: () => lookups }
})

it.layer(TestCache)("ReadCache", (it) => {
  it.effect("a hit until a notice for one of its tables, a local write, or the TTL; other tables change nothing", () =>
    Effect.gen(function*() {
      const rc = yield* ReadCache
      const { lookups, read } = yield* counted
      expect(yield* read()).toBe("v1")
      expect(yield* read()).toBe("v1")
      notice("posts")
      expect(yield* read()).toBe("v1")
      notice("tasks")
      expect(yield* read()).toBe("v2")
      rc.touchAll()
      expect(yield* read()).toBe("v3")
      yield* TestClock.adjust("1999 millis")
      expect(yield* read()).toBe("v3")
      yield* TestClock.adjust("2 millis")
      expect(yield* read()).toBe("v4")
      expect(lookups()).toBe(4)
    }))

  it.effect("a read that began before a write is neither joined nor kept by reads after it", () =>
    Effect.gen(function*() {
      const rc = yield* ReadCache
      const cache = rc.make<string>({ tables: ["tasks"], maxBytes: 1000, size: (v) => v.length })
      const gate = yield* Deferred.make<void>()
      const slow = yield* Effect.fork(cache.get("k", () => Effect.as(Deferred.await(gate), "old")))
      yield* Effect.yieldNow()
      // a concurrent reader with nothing written since joins the one lookup
      const joined = yield* Effect.fork(cache.get("k", () => Effect.succeed("never")))
      yield* Effect.yieldNow()
      rc.touchAll()
      expect(yield* cache.get("k", () => Effect.succeed("new"))).toBe("new")
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(slow)).toBe("old")
      expect(yield* Fiber.join(joined)).toBe("old")
      // "old" did not replace the entry read after the write
      expect(yield* cache.get("k", () => Effect.succeed("newer"))).toBe("new")
      rc.touchAll()
      expect(yield* cache.get("k", () => Effect.succeed("newer"))).toBe("newer")
    }))

  it.effect("entries beyond the byte budget push out the oldest", () =>
    Effect.gen(function*() {
      const cache = (yield* ReadCache).make<string>({ tables: ["posts"], maxBytes: 10, size: (v) => v.length })
      yield* cache.get("a", () => Effect.succeed("aaaa"))
      yield* cache.get("b", () => Effect.succeed("bbbb"))
      yield* cache.get("c", () => Effect.succeed("cccc"))
      expect(cache.size()).toBe(2)
      expect(yield* cache.get("a", () => Effect.succeed("fresh"))).toBe("fresh")
      expect(yield* cache.get("c", () => Effect.succeed("fresh"))).toBe("cccc")
    }))
})
