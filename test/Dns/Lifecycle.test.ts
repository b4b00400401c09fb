import { describe, expect, it } from "@effect/vitest"
import * as DnsPacket from "dns-packet"
import { ConfigProvider, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import * as Net from "node:net"
import { DnsServer } from "../../src/Dns/DnsServer.js"
import { Supervisor } from "../../src/Supervisor.js"
import { query, rcode, tcp, txtValues, udp } from "./client.js"
import { records, server, source, zone } from "./fixtures.js"

const withConfig = (entries: Record<string, string>) =>
  DnsServer.layer.pipe(
    Layer.provide(Layer.merge(source, Supervisor.Default)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries)))))
  )

describe("DnsServer.layer", () => {
  it.effect("reads host, port and zone from Config", () =>
    Effect.gen(function*() {
      const bound = yield* DnsServer
      expect(bound.zone).toBe("id.example")
      const reply = yield* udp(bound.udpPort, query("alice.ID.example", "TXT"))
      expect(rcode(reply!)).toBe("NOERROR")
      expect(txtValues(reply!).length).toBe(records.alice.txt.length - 1)
    }).pipe(Effect.provide(withConfig({ DNS_PORT: "0", DNS_HOST: "127.0.0.1", DNS_ZONE: "ID.Example." }))))

  it.effect("fails to start on an invalid port", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(withConfig({ DNS_PORT: "70000" }))))
      expect(Exit.isFailure(exit)).toBe(true)
    }))

  it.scoped("fails with DnsBindError when the port is taken", () =>
    Effect.gen(function*() {
      const first = yield* server()
      const error = yield* Effect.flip(server({ port: first.tcpPort }))
      expect(error).toMatchObject({ _tag: "DnsBindError", transport: "tcp" })
    }).pipe(Effect.provide(source)))
})

describe("DnsServer at work", () => {
  it.scoped("answers SERVFAIL when a lookup outlasts the timeout, over UDP and TCP", () =>
    Effect.gen(function*() {
      const bound = yield* server({ lookupTimeout: "1 second" })
      const overUdp = yield* Effect.fork(udp(bound.udpPort, query(`slow.${zone}`, "TXT"), 2000))
      const overTcp = yield* Effect.fork(tcp(bound.tcpPort, [query(`slow.${zone}`, "TXT")], 1, 2000))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      yield* TestClock.adjust("2 seconds")
      const [udpReply, [tcpReply]] = [yield* Fiber.join(overUdp), yield* Fiber.join(overTcp)]
      expect(rcode(udpReply!)).toBe("SERVFAIL")
      expect(rcode(tcpReply)).toBe("SERVFAIL")
      expect(udpReply!.questions![0].name).toBe(`slow.${zone}`)
    }).pipe(Effect.provide(source)))

  it.scoped("reassembles TCP frames that arrive a byte at a time", () =>
    Effect.gen(function*() {
      const bound = yield* server()
      const body = DnsPacket.encode(query(`alice.${zone}`, "TXT", { id: 4242 }))
      const frame = Buffer.concat([Buffer.from([body.length >> 8, body.length & 0xff]), body])
      const reply = yield* Effect.promise(() =>
        new Promise<Buffer>((resolve) => {
          const socket = Net.connect(bound.tcpPort, "127.0.0.1", async () => {
            for (const byte of frame) {
              socket.write(Buffer.from([byte]))
              await new Promise((next) => setTimeout(next, 1))
            }
          })
          socket.setNoDelay(true)
          socket.on("data", (data) => {
            socket.destroy()
            resolve(data)
          })
        })
      )
      const decoded = DnsPacket.decode(reply.subarray(2))
      expect(decoded.id).toBe(4242)
      expect(txtValues(decoded).length).toBe(records.alice.txt.length - 1)
    }).pipe(Effect.provide(source)))

  it.scoped("closes idle connections", () =>
    Effect.gen(function*() {
      const bound = yield* server({ tcpIdleMs: 150 })
      const closedAfter = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const started = performance.now()
          const socket = Net.connect(bound.tcpPort, "127.0.0.1")
          socket.on("close", () => resolve(performance.now() - started))
          socket.on("error", () => {})
        })
      )
      expect(closedAfter).toBeGreaterThanOrEqual(100)
      expect(closedAfter).toBeLessThan(2000)
    }).pipe(Effect.provide(source)))

  it.scoped("closes its sockets with the scope", () =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.map(server(), (bound) => bound.tcpPort))
      const refused = yield* Effect.promise(() =>
        new Promise<boolean>((resolve) => {
          const socket = Net.connect(port, "127.0.0.1")
          socket.on("connect", () => resolve(false))
          socket.on("error", () => resolve(true))
        })
      )
      expect(refused).toBe(true)
    }).pipe(Effect.provide(source)))
})
