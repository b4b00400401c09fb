import { describe, expect, it } from "@effect/vitest"
import * as DnsPacket from "dns-packet"
import { Effect } from "effect"
import * as Dgram from "node:dgram"
import { makeFloodCounter, makePauseSchedule } from "../../src/Dns/FloodBrake.js"
import { flood, query } from "./client.js"
import { server, source, zone } from "./fixtures.js"

/** One query from `source` (another /24 than the flood's); its reply's id and how long it took, or null. */
const timed = (port: number, id: number, source = "127.0.1.1") =>
  Effect.async<{ readonly id: number; readonly ms: number } | null>((resume) => {
    const socket = Dgram.createSocket("udp4")
    const started = Date.now()
    const timer = setTimeout(() => done(null), 5_000)
    const done = (result: { readonly id: number; readonly ms: number } | null) => {
      clearTimeout(timer)
      socket.close()
      resume(Effect.succeed(result))
    }
    socket.on("message", (reply) => done({ id: DnsPacket.decode(reply).id!, ms: Date.now() - started }))
    socket.bind(
      0,
      source,
      () => socket.send(DnsPacket.encode(query(`alice.${zone}`, "TXT", { id })), port, "127.0.0.1")
    )
    return Effect.sync(() => {
      clearTimeout(timer)
      socket.close()
    })
  })

describe("FloodBrake", () => {
  it("sees a flood in `drops` drops within the window, and starts counting again after one", () => {
    let now = 0
    const counter = makeFloodCounter({ drops: 3, windowMs: 100, pauseMs: 50, maxPauseMs: 400 }, () => now)
    expect([counter(), counter(), counter()]).toEqual([false, false, true])
    expect([counter(), counter()]).toEqual([false, false])
    now = 150 // a new window: the two before it do not count
    expect([counter(), counter(), counter()]).toEqual([false, false, true])
  })

  it("counts nothing when drops come slower than the window", () => {
    let now = 0
    const counter = makeFloodCounter({ drops: 2, windowMs: 100, pauseMs: 50, maxPauseMs: 400 }, () => now)
    const seen = Array.from({ length: 10 }, () => {
      now += 100
      return counter()
    })
    expect(seen.every((flooded) => !flooded)).toBe(true)
  })

  it("doubles the pause while the flood outlasts it, up to the longest, and starts over after a calm window", () => {
    const next = makePauseSchedule({ drops: 2, windowMs: 100, pauseMs: 50, maxPauseMs: 400 })
    // the first flood: no pause before it
    expect(next(Number.POSITIVE_INFINITY)).toBe(50)
    // seen again 5 ms after each resume: the flood outlasted the pause
    expect([next(5), next(5), next(5), next(5), next(99)]).toEqual([100, 200, 400, 400, 400])
    // a window without one after the resume: a new flood
    expect(next(100)).toBe(50)
    expect(next(20)).toBe(100)
  })

  it("never pauses longer than the first pause when that is the longer one", () => {
    const next = makePauseSchedule({ drops: 2, windowMs: 100, pauseMs: 500, maxPauseMs: 100 })
    expect([next(Number.POSITIVE_INFINITY), next(5), next(5)]).toEqual([500, 500, 500])
  })

  // the rate limiter drops one source's queries past its burst; 50 drops make a flood and UDP stops reading for
  // 1.5 s: another source's query waits for it in the kernel's buffer, is answered after, and nothing is lost
  it.scoped("stops reading UDP for the pause once dropped queries make a flood, then answers again", () =>
    Effect.gen(function*() {
      const bound = yield* server({
        rateLimit: { perSecond: 10, burst: 20, slip: 0 },
        floodBrake: { drops: 50, windowMs: 10_000, pauseMs: 1_500, maxPauseMs: 1_500 }
      })
      const queries = Array.from({ length: 100 }, (_, i) => query(`alice.${zone}`, "TXT", { id: i }))
      const first = yield* flood(bound.udpPort, queries, 200)
      expect(first.length).toBe(20)
      const other = yield* timed(bound.udpPort, 7)
      expect(other?.id).toBe(7)
      // the pause began before the flood's replies were collected (200 ms); at least the rest of it was waited out
      expect(other!.ms).toBeGreaterThanOrEqual(900)
    }).pipe(Effect.provide(source)))

  it.scoped("is off with drops 0: a flood is read through", () =>
    Effect.gen(function*() {
      const bound = yield* server({
        rateLimit: { perSecond: 10, burst: 20, slip: 0 },
        floodBrake: { drops: 0, windowMs: 10_000, pauseMs: 1_500, maxPauseMs: 1_500 }
      })
      const queries = Array.from({ length: 100 }, (_, i) => query(`alice.${zone}`, "TXT", { id: i }))
      yield* flood(bound.udpPort, queries, 200)
      const other = yield* timed(bound.udpPort, 8)
      expect(other?.id).toBe(8)
      expect(other!.ms).toBeLessThan(900)
    }).pipe(Effect.provide(source)))
})
