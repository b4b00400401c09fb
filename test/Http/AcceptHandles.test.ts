import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import type { AddressInfo } from "node:net"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as AcceptHandles from "../../src/Http/AcceptHandles.js"
import { createHoldingServer, defaultLimits, defaultTimeouts } from "../../src/Http/HoldingServer.js"
import { waitFor } from "../support/Realtime.js"

// the project's poll (test/support/Realtime.ts), for a plain promise test
const until = (what: string, check: () => boolean, ms = 20_000) =>
  Effect.runPromise(waitFor(what, () => (check() ? true : undefined), ms))

const listen = async <S extends Net.Server>(server: S) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return (server.address() as AddressInfo).port
}

const close = (server: Net.Server) => new Promise<void>((resolve) => server.close(() => resolve()))

/**
 * `n` connections to `port` made by another process while this one's loop is blocked (so they all wait in the
 * accept queue), then the loop let go: how many connections each loop turn accepted.
 */
const acceptsPerTurn = async (server: Net.Server, port: number, n: number) => {
  const marker = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-accept-")), "connected")
  const client = spawn(process.execPath, [
    "-e",
    `const net = require("node:net"); let left = ${n}; const held = []
     for (let i = 0; i < ${n}; i++) held.push(net.connect(${port}, "127.0.0.1", () => {
       if (--left === 0) require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")
     }).on("error", () => {}))
     setTimeout(() => process.exit(0), 30000)`
  ], { stdio: "ignore" })
  let turn = 0
  const turns = new Map<number, number>()
  server.on("connection", () => turns.set(turn, (turns.get(turn) ?? 0) + 1))
  // the loop held until the kernel has completed every handshake (the client saw each connect)
  const deadline = Date.now() + 20_000
  while (!Fs.existsSync(marker) && Date.now() < deadline) {
    // a blocked loop, as a busy server's is between polls
  }
  let counted = 0
  const tick = () => {
    turn++
    counted = [...turns.values()].reduce((a, b) => a + b, 0)
    if (counted < n) setImmediate(tick)
  }
  setImmediate(tick)
  await until(`${n} connections accepted`, () => counted >= n)
  client.kill()
  Fs.rmSync(Path.dirname(marker), { recursive: true, force: true })
  return [...turns.values()]
}

describe("accepting through several descriptors of the listening socket", () => {
  it("a loop that turns seldom accepts up to one connection per descriptor per turn", async () => {
    const server = Net.createServer((socket) => socket.on("error", () => {}))
    const failures: Array<string> = []
    const { stats } = AcceptHandles.install(server, { count: 4, onFailure: (reason) => failures.push(reason) })
    const port = await listen(server)
    await until("three copies of the listening socket", () => stats().extra === 3)
    const perTurn = await acceptsPerTurn(server, port, 32)
    // libuv accepts one connection per descriptor per turn: with four, 32 waiting connections take 8 turns, not 32
    expect(Math.max(...perTurn)).toBeGreaterThanOrEqual(2)
    expect(perTurn.length).toBeLessThan(32)
    expect(stats().accepted.reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    expect(failures).toEqual([])
    await close(server)
    expect(stats().extra).toBe(0)
    // the port is free again: no descriptor of it is left open, here or in the helper
    const again = Net.createServer()
    await new Promise<void>((resolve, reject) => again.once("error", reject).listen(port, "127.0.0.1", resolve))
    await close(again)
  }, 60_000)

  it("the HTTP server serves what every descriptor accepts, within one total connection cap", async () => {
    const server = createHoldingServer(defaultTimeouts, { ...defaultLimits, maxConnections: 12 })
    server.on("request", (_req, res) => res.writeHead(200, { "content-length": 2 }).end("ok"))
    const sockets = new Set<Net.Socket>()
    server.on("connection", (socket: Net.Socket) => sockets.add(socket))
    const live = () => [...sockets].filter((s) => !s.destroyed).length
    const { stats } = AcceptHandles.install(server, { count: 4, onFailure: () => {} })
    const port = await listen(server)
    await until("three copies of the listening socket", () => stats().extra === 3)
    // 32 connections land at once: the copies accept most of them, and the cap of 12 holds over all descriptors
    const perTurn = await acceptsPerTurn(server, port, 32)
    expect(perTurn.reduce((a, b) => a + b, 0)).toBe(32)
    expect(stats().accepted.reduce((a, b) => a + b, 0)).toBeGreaterThan(12)
    expect(live()).toBe(12)
    await until("the client's connections closed", () => live() === 0)
    // requests on new connections are answered whichever descriptor accepted them
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: "close" } })
      expect(await res.text()).toBe("ok")
    }
    await close(server)
  }, 60_000)

  it("one descriptor is Node's own: nothing is spawned", async () => {
    const server = Net.createServer()
    const { stats } = AcceptHandles.install(server, { count: 1, onFailure: () => {} })
    await listen(server)
    expect(stats().extra).toBe(0)
    await close(server)
  })
})
