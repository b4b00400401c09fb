import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { makeRateLimiter, prefixOf } from "../../src/Dns/RateLimit.js"
import { flood, query } from "./client.js"
import { server, source, zone } from "./fixtures.js"

describe("RateLimit", () => {
  it("groups sources by /24 for IPv4 and /56 for IPv6", () => {
    expect(prefixOf("192.0.2.17")).toBe(prefixOf("192.0.2.200"))
    expect(prefixOf("192.0.2.17")).not.toBe(prefixOf("192.0.3.17"))
    expect(prefixOf("::ffff:192.0.2.9")).toBe(prefixOf("192.0.2.17"))
    expect(prefixOf("2001:db8:aa:bb00::1")).toBe(prefixOf("2001:db8:aa:bbff:1::2"))
    expect(prefixOf("2001:db8:aa:bb00::1")).not.toBe(prefixOf("2001:db8:aa:cc00::1"))
  })

  it("lets a burst through, then refills at the configured rate", () => {
    let now = 0
    const limiter = makeRateLimiter({ perSecond: 10, burst: 5, slip: 0 }, () => now)
    const take = (n: number) => Array.from({ length: n }, () => limiter.take("198.51.100.1"))
    expect(take(7)).toEqual(["send", "send", "send", "send", "send", "drop", "drop"])
    expect(limiter.take("198.51.101.1")).toBe("send")
    now += 300
    expect(take(4)).toEqual(["send", "send", "send", "drop"])
  })

  it("slips every Nth response over the limit, the slips themselves at most at the rate", () => {
    let now = 0
    const limiter = makeRateLimiter({ perSecond: 1, burst: 2, slip: 2 }, () => now)
    const take = (n: number) => Array.from({ length: n }, () => limiter.take("10.0.0.1"))
    expect(take(8)).toEqual(["send", "send", "drop", "slip", "drop", "slip", "drop", "drop"])
    now += 1000
    expect(take(5)).toEqual(["send", "drop", "slip", "drop", "drop"])
  })

  it("says when a prefix has neither answers nor slips left, so its queries need not be decoded", () => {
    let now = 0
    const limiter = makeRateLimiter({ perSecond: 1, burst: 2, slip: 2 }, () => now)
    expect(limiter.exhausted("10.0.0.1")).toBe(false)
    const take = (n: number) => Array.from({ length: n }, () => limiter.take("10.0.0.1"))
    expect(take(4)).toEqual(["send", "send", "drop", "slip"])
    expect(limiter.exhausted("10.0.0.2")).toBe(false)
    expect(take(2)).toEqual(["drop", "slip"])
    expect(limiter.exhausted("10.0.0.3")).toBe(true)
    expect(limiter.exhausted("10.0.1.1")).toBe(false)
    now += 1000
    expect(limiter.exhausted("10.0.0.1")).toBe(false)
    const off = makeRateLimiter({ perSecond: 1, burst: 1, slip: 0 }, () => 0)
    expect(off.take("10.0.0.1")).toBe("send")
    expect(off.exhausted("10.0.0.1")).toBe(true)
  })

  it("keeps at most maxPrefixes buckets", () => {
    let now = 0
    const limiter = makeRateLimiter({ perSecond: 1000, burst: 2, slip: 0, maxPrefixes: 100 }, () => now)
    for (let i = 0; i < 1000; i++) {
      now += 1
      limiter.take(`10.${i >> 8}.${i & 255}.1`)
    }
    expect(limiter.size).toBeLessThanOrEqual(100)
  })

  // TestClock stands still here, so nothing refills until the test moves it
  it.scoped("drops UDP responses over the limit for one /24 and leaves other prefixes alone", () =>
    Effect.gen(function*() {
      const bound = yield* server({ rateLimit: { perSecond: 10, burst: 20, slip: 0 } })
      const queries = Array.from({ length: 60 }, (_, i) => query(`alice.${zone}`, "TXT", { id: i }))
      const first = yield* flood(bound.udpPort, queries)
      expect(first.length).toBe(20)
      const other = yield* flood(bound.udpPort, queries.slice(0, 5), 300, "127.0.1.1")
      expect(other.length).toBe(5)
      yield* TestClock.adjust("1 second")
      const refilled = yield* flood(bound.udpPort, queries.slice(0, 30))
      expect(refilled.length).toBe(10)
    }).pipe(Effect.provide(source)))

  it.scoped("slips truncated replies so real clients can retry over TCP", () =>
    Effect.gen(function*() {
      const bound = yield* server({ rateLimit: { perSecond: 10, burst: 20, slip: 2 } })
      const queries = Array.from({ length: 60 }, (_, i) => query(`alice.${zone}`, "TXT", { id: i }))
      const replies = yield* flood(bound.udpPort, queries)
      expect(replies.filter((r) => !r.flag_tc).length).toBe(20)
      expect(replies.filter((r) => r.flag_tc && r.answers!.length === 0).length).toBe(20)
    }).pipe(Effect.provide(source)))
})
