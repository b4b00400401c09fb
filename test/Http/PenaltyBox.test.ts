import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as Net from "node:net"
import { gate } from "../../src/Edge/ConnectionGate.js"
import { defaultPenalty, type PenaltyOptions, Strikes } from "../../src/Edge/PenaltyBox.js"
import { createHoldingServer, serverDefaults } from "../../src/Http/HoldingServer.js"

/** A box on a hand-driven clock. */
const boxAt = (options: Partial<PenaltyOptions> = {}) => {
  const clock = { now: 1_000_000 }
  const strikes = new Strikes({ ...defaultPenalty, threshold: 3, ...options }, () => clock.now)
  return { clock, strikes }
}

const strikeN = (strikes: Strikes, address: string, n: number) => {
  for (let i = 0; i < n; i++) strikes.strike(address)
}

describe("the penalty box's bookkeeping", () => {
  it("boxes an address only past the threshold, for the cooling period", () => {
    const { clock, strikes } = boxAt({ threshold: 3, windowMs: 10_000, coolMs: 30_000 })
    strikeN(strikes, "10.0.0.1", 3)
    expect(strikes.boxedFor("10.0.0.1")).toBe(0)
    strikes.strike("10.0.0.1")
    expect(strikes.boxedFor("10.0.0.1")).toBe(30_000)
    clock.now += 29_999
    expect(strikes.boxedFor("10.0.0.1")).toBeGreaterThan(0)
    // the box opens by itself, and the address starts again from no strikes
    clock.now += 1
    expect(strikes.boxedFor("10.0.0.1")).toBe(0)
    strikeN(strikes, "10.0.0.1", 3)
    expect(strikes.boxedFor("10.0.0.1")).toBe(0)
  })

  it("counts strikes within the window only", () => {
    const { clock, strikes } = boxAt({ threshold: 3, windowMs: 10_000 })
    strikeN(strikes, "10.0.0.1", 3)
    clock.now += 10_000
    // a new window: the three before are forgotten
    strikeN(strikes, "10.0.0.1", 3)
    expect(strikes.boxedFor("10.0.0.1")).toBe(0)
    clock.now += 9_999
    strikes.strike("10.0.0.1")
    expect(strikes.boxedFor("10.0.0.1")).toBeGreaterThan(0)
  })

  it("strikes while boxed neither count nor extend the period", () => {
    const { clock, strikes } = boxAt({ threshold: 3, coolMs: 30_000 })
    strikeN(strikes, "10.0.0.1", 4)
    clock.now += 20_000
    strikeN(strikes, "10.0.0.1", 100)
    expect(strikes.boxedFor("10.0.0.1")).toBe(10_000)
  })

  it("keys by address: another address is not boxed, and a threshold of 0 boxes nobody", () => {
    const { strikes } = boxAt({ threshold: 3 })
    strikeN(strikes, "10.0.0.1", 4)
    expect(strikes.boxedFor("10.0.0.2")).toBe(0)
    strikeN(strikes, "10.0.0.2", 3)
    expect(strikes.boxedFor("10.0.0.2")).toBe(0)
    const off = boxAt({ threshold: 0 }).strikes
    strikeN(off, "10.0.0.1", 1_000)
    expect(off.boxedFor("10.0.0.1")).toBe(0)
    expect(off.size).toBe(0)
  })

  it("remembers at most maxAddresses, forgetting quiet ones before boxed ones", () => {
    const { strikes } = boxAt({ threshold: 3, maxAddresses: 100 })
    strikeN(strikes, "10.0.0.1", 4)
    for (let i = 0; i < 10_000; i++) strikes.strike(`10.1.${i >> 8}.${i & 255}`)
    expect(strikes.size).toBe(100)
    expect(strikes.stats.forgotten).toBe(10_000 - 99)
    // the boxed address was never the oldest quiet one
    expect(strikes.boxedFor("10.0.0.1")).toBeGreaterThan(0)
    // boxed addresses alone past the cap: the oldest goes, the map does not grow
    const full = boxAt({ threshold: 0 + 1, maxAddresses: 10 }).strikes
    for (let i = 0; i < 50; i++) strikeN(full, `10.2.0.${i}`, 2)
    expect(full.size).toBe(10)
    expect(full.boxedFor("10.2.0.49")).toBeGreaterThan(0)
  })
})

/** A holding server behind a gate with `strikes` and a cap of 5 per address, answering every request 200. */
const serve = async (strikes: Strikes) => {
  const server = createHoldingServer(serverDefaults, (address) => strikes.strike(address))
  const front = gate(server, { perIp: 5, strikes })
  server.on("request", (_req, res) => res.writeHead(200, { "content-length": 2 }).end("ok"))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  // as the server's scope closes it: held sockets reset, then every connection closed
  return { stop: () => Effect.runPromise(front.close), port: (server.address() as AddressInfo).port }
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()))

/** One GET from `from`: what came back before the server closed (or `ms` passed), and whether it was reset. */
const get = (port: number, from: string, ms = 500) =>
  new Promise<{ data: string; closed: boolean }>((resolve) => {
    const socket = Net.connect({ port, host: "127.0.0.1", localAddress: from })
    let data = ""
    let closed = false
    socket.on("connect", () => socket.write("GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"))
    socket.on("data", (d) => void (data += d.toString()))
    socket.on("error", () => {})
    socket.on("close", () => {
      closed = true
      resolve({ data, closed })
    })
    setTimeout(() => {
      socket.destroy()
      resolve({ data, closed })
    }, ms)
  })

describe("a boxed address's connections", () => {
  it("tarpit: held unanswered (at most the per-address cap, the rest reset); another address is served", async () => {
    const { strikes } = boxAt({ threshold: 3, mode: "tarpit" })
    const { port, stop } = await serve(strikes)
    try {
      strikeN(strikes, "127.0.0.2", 4)
      const [held, other] = await Promise.all([get(port, "127.0.0.2"), get(port, "127.0.0.1")])
      expect(held).toEqual({ data: "", closed: false })
      expect(other.data.startsWith("HTTP/1.1 200")).toBe(true)
      // the cap is 5, the first one still among them (a held socket is not read, so its peer's leaving is seen
      // only when the period ends): four more are held, the ones past them reset at once
      const more = await Promise.all(Array.from({ length: 8 }, () => get(port, "127.0.0.2", 300)))
      expect(more.filter((r) => r.closed)).toHaveLength(4)
      expect(more.every((r) => r.data === "")).toBe(true)
    } finally {
      await stop()
    }
  })

  it("tarpit: held until the box opens, then closed; the address is served again", async () => {
    const clock = { now: Date.now() }
    const strikes = new Strikes({ ...defaultPenalty, threshold: 3, coolMs: 300 }, () => clock.now)
    const { port, stop } = await serve(strikes)
    try {
      strikeN(strikes, "127.0.0.2", 4)
      const held = await get(port, "127.0.0.2", 2_000)
      expect(held).toEqual({ data: "", closed: true })
      clock.now += 300
      expect((await get(port, "127.0.0.2")).data.startsWith("HTTP/1.1 200")).toBe(true)
    } finally {
      await stop()
    }
  })

  it("refuse: reset at once; another address is served", async () => {
    const { strikes } = boxAt({ threshold: 3, mode: "refuse" })
    const { port, stop } = await serve(strikes)
    try {
      strikeN(strikes, "127.0.0.2", 4)
      const started = Date.now()
      const refused = await get(port, "127.0.0.2", 2_000)
      expect(refused).toEqual({ data: "", closed: true })
      expect(Date.now() - started).toBeLessThan(1_000)
      expect((await get(port, "127.0.0.1")).data.startsWith("HTTP/1.1 200")).toBe(true)
    } finally {
      await stop()
    }
  })

  it("a 408 for a slow request is a strike against its address", async () => {
    const { strikes } = boxAt({ threshold: 1 })
    const server = createHoldingServer(
      { ...serverDefaults, headersTimeoutMs: 200, requestTimeoutMs: 200 },
      (address) => strikes.strike(address)
    )
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    try {
      const slow = (from: string) =>
        new Promise<string>((resolve) => {
          const socket = Net.connect({ port, host: "127.0.0.1", localAddress: from })
          let data = ""
          socket.on("connect", () => socket.write("GET / HTTP/1.1\r\n"))
          socket.on("data", (d) => void (data += d.toString()))
          socket.on("error", () => {})
          socket.on("close", () => resolve(data))
        })
      expect(await slow("127.0.0.3")).toMatch(/^HTTP\/1.1 408/)
      expect(strikes.stats.strikes).toBe(1)
      expect(strikes.boxedFor("127.0.0.3")).toBe(0)
      expect(await slow("127.0.0.3")).toMatch(/^HTTP\/1.1 408/)
      expect(strikes.boxedFor("127.0.0.3")).toBeGreaterThan(0)
    } finally {
      await close(server)
    }
  })
})
