import { describe, expect, it } from "@effect/vitest"
import * as DnsPacket from "dns-packet"
import { Effect, Logger } from "effect"
import * as Dgram from "node:dgram"
import * as Net from "node:net"
import { type FloodBrakeOptions, makeFloodCounter, makePauseSchedule } from "../../src/Dns/FloodBrake.js"
import { flood, query } from "./client.js"
import { server, source, zone } from "./fixtures.js"

/** One query from `source` (another /24 than the flood's) to `host`; its reply's id, or null after `timeoutMs`. */
const ask = (port: number, id: number, timeoutMs: number, source = "127.0.1.1", host = "127.0.0.1") =>
  Effect.async<number | null>((resume) => {
    const socket = Dgram.createSocket(Net.isIPv6(source) ? "udp6" : "udp4")
    const timer = setTimeout(() => done(null), timeoutMs)
    const done = (result: number | null) => {
      clearTimeout(timer)
      socket.close()
      resume(Effect.succeed(result))
    }
    socket.on("message", (reply) => done(DnsPacket.decode(reply).id!))
    socket.bind(0, source, () => socket.send(DnsPacket.encode(query(`alice.${zone}`, "TXT", { id })), port, host))
    return Effect.sync(() => {
      clearTimeout(timer)
      socket.close()
    })
  })

/** Asks every 100 ms until answered; how long after `since` (ms since the epoch) the answer came, or null. */
const answeredAfter = (port: number, since: number, withinMs: number, source?: string, host?: string) =>
  Effect.gen(function*() {
    while (Date.now() - since < withinMs) {
      if ((yield* ask(port, 9, 100, source, host)) === 9) return Date.now() - since
    }
    return null
  })

/** A socket bound to `host:port`, closed with the scope; fails if the port is taken. */
const squat = (port: number, host = "127.0.0.1") =>
  Effect.acquireRelease(
    Effect.async<Dgram.Socket, Error>((resume) => {
      const socket = Dgram.createSocket(Net.isIPv6(host) ? "udp6" : "udp4")
      socket.once("error", (error) => resume(Effect.fail(error)))
      socket.bind(port, host, () => resume(Effect.succeed(socket)))
    }),
    (socket) => Effect.sync(() => socket.close())
  )

// one source's 100 queries: the rate limiter answers 20 and drops the rest, and 50 drops make a flood
const limited = { perSecond: 10, burst: 20, slip: 0 }
const brake = (pauseMs: number): FloodBrakeOptions => ({ drops: 50, windowMs: 10_000, pauseMs, maxPauseMs: pauseMs })
const queries = Array.from({ length: 100 }, (_, i) => query(`alice.${zone}`, "TXT", { id: i }))

// live: the pause and the rebind's retries are timed by Effect's clock, and these tests wait them out on real sockets
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

  // UDP closes for the pause, so another source's query meanwhile goes unanswered; the same port is bound again
  // after it and answers
  it.scopedLive("stops listening on UDP for the pause once dropped queries make a flood, then answers on the same port", () =>
    Effect.gen(function*() {
      const bound = yield* server({ rateLimit: limited, floodBrake: brake(1_500) })
      const started = Date.now()
      expect((yield* flood(bound.udpPort, queries, 200)).length).toBe(20)
      expect(yield* ask(bound.udpPort, 7, 300)).toBeNull()
      const after = yield* answeredAfter(bound.udpPort, started, 5_000)
      expect(after).not.toBeNull()
      // the pause began while the flood was sent, at most a few ms after `started`
      expect(after!).toBeGreaterThanOrEqual(1_400)
    }).pipe(Effect.provide(source)))

  it.scopedLive("does the same on an IPv6 socket", () =>
    Effect.gen(function*() {
      const bound = yield* server({ host: "::1", rateLimit: limited, floodBrake: brake(1_000) })
      const started = Date.now()
      expect((yield* flood(bound.udpPort, queries, 200, "::1", "::1")).length).toBe(20)
      // ::1 is one /56: another source is not at hand, and this one's burst is used up; the TCP port shows the
      // responder is still up, the UDP port that nothing listens there until the pause ends
      const squatter = yield* Effect.scoped(squat(bound.udpPort, "::1").pipe(Effect.as("bound")))
      expect(squatter).toBe("bound")
      yield* Effect.sleep(Math.max(0, 1_100 - (Date.now() - started)))
      const taken = yield* Effect.flip(Effect.scoped(squat(bound.udpPort, "::1")))
      expect(taken).toMatchObject({ code: "EADDRINUSE" })
    }).pipe(Effect.provide(source)))

  it.scopedLive("is off with drops 0: a flood is read through", () =>
    Effect.gen(function*() {
      const bound = yield* server({ rateLimit: limited, floodBrake: { ...brake(1_500), drops: 0 } })
      yield* flood(bound.udpPort, queries, 200)
      expect(yield* ask(bound.udpPort, 8, 500)).toBe(8)
    }).pipe(Effect.provide(source)))

  // another socket takes the port during the pause: the rebind fails, is logged, and is tried again until the port
  // is free, and the responder answers again
  it.scopedLive("logs a rebind that finds the port taken and retries it until the port is free", () => {
    const logs: Array<string> = []
    const logger = Logger.make(({ message }) => logs.push([message].flat().map(String).join(" ")))
    return Effect.gen(function*() {
      const bound = yield* server({ rateLimit: limited, floodBrake: brake(500) })
      expect((yield* flood(bound.udpPort, queries, 200)).length).toBe(20)
      const squatted = yield* Effect.forkScoped(Effect.scoped(
        Effect.gen(function*() {
          const socket = yield* squat(bound.udpPort)
          let got = 0
          socket.on("message", () => got++)
          yield* Effect.sleep(1_500)
          // the queries sent to the port meanwhile came here: the responder had not bound it
          yield* ask(bound.udpPort, 10, 100)
          return got
        })
      ))
      const got = yield* squatted.await
      expect(got._tag === "Success" && got.value).toBeGreaterThanOrEqual(1)
      expect(logs.filter((line) => line.includes("could not bind")).length).toBeGreaterThanOrEqual(2)
      // the squatter is gone: the next try binds the port (at most 5 s apart; here ~1.6 s)
      expect(yield* answeredAfter(bound.udpPort, Date.now(), 5_000)).not.toBeNull()
    }).pipe(Effect.provide(source), Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
  })

  it.scopedLive("binds nothing again once its scope closed during a pause", () =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.gen(function*() {
        const bound = yield* server({ rateLimit: limited, floodBrake: brake(300) })
        yield* flood(bound.udpPort, queries, 50)
        return bound.udpPort
      }))
      yield* Effect.sleep(600)
      // the rebind that was due at 300 ms did not happen: the port is free
      yield* Effect.scoped(squat(port))
    }).pipe(Effect.provide(source)))
})
