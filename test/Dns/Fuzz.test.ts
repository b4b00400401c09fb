import { describe, expect, it } from "@effect/vitest"
import * as DnsPacket from "dns-packet"
import { Effect } from "effect"
import * as Dgram from "node:dgram"
import * as Net from "node:net"
import { answer } from "../../src/Dns/Responder.js"
import * as Wire from "../../src/Dns/Wire.js"
import { query, rcode, tcp, udp } from "./client.js"
import { server, source, zone } from "./fixtures.js"

// mulberry32: a seeded generator, so a failing corpus can be replayed
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const seeds = [
  query(`alice.${zone}`, "TXT"),
  query(`_identity.alice.${zone}`, "TXT", { edns: 4096 }),
  query(`big.${zone}`, "TXT", { edns: 1232 }),
  query(zone, "SOA"),
  query(`nobody.${zone}`, "ANY", { edns: 512 }),
  query("example.com", "A")
].map((q) => DnsPacket.encode(q))

const corpus = (count: number, seed: number): Array<Buffer> => {
  const next = random(seed)
  const int = (n: number) => Math.floor(next() * n)
  return Array.from({ length: count }, () => {
    if (next() < 0.4) return Buffer.from(Array.from({ length: int(600) }, () => int(256)))
    const packet = Buffer.from(seeds[int(seeds.length)])
    switch (int(4)) {
      case 0:
        for (let i = 1 + int(4); i > 0; i--) packet[int(packet.length)] = int(256)
        return packet
      case 1:
        return packet.subarray(0, int(packet.length))
      case 2:
        packet.writeUInt16BE(int(65536), 4 + 2 * int(4))
        return packet
      default:
        return Buffer.concat([packet, Buffer.from(Array.from({ length: int(64) }, () => int(256)))])
    }
  })
}

const PACKETS = 100_000

describe("malformed input", () => {
  it.effect(`answers or drops each of ${PACKETS} random and mutated packets without failing`, () =>
    Effect.gen(function*() {
      let answered = 0
      const bad: Array<string> = []
      for (const message of corpus(PACKETS, 1)) {
        const q = Wire.decode(message)
        if (q === null) continue
        const response = yield* answer(q, zone, { serial: 1 })
        if (response === null) continue
        const bytes = Wire.encode(q, response, Wire.udpLimit(q))
        const decoded = bytes === null ? null : DnsPacket.decode(bytes)
        if (decoded?.type !== "response" || decoded.id !== q.id) bad.push(message.toString("hex"))
        answered++
      }
      expect(bad).toEqual([])
      expect(answered).toBeGreaterThan(PACKETS / 10)
    }).pipe(Effect.provide(source)))

  it.scoped(
    `still answers after ${PACKETS} garbage packets over UDP and garbage frames over TCP`,
    () =>
      Effect.gen(function*() {
        const bound = yield* server()
        const packets = corpus(PACKETS, 2)
        const replies = yield* Effect.promise(async () => {
          let replies = 0
          const sockets = Array.from({ length: 4 }, () => Dgram.createSocket("udp4").on("message", () => replies++))
          for (let i = 0; i < packets.length; i++) {
            sockets[i % 4].send(packets[i], bound.udpPort, "127.0.0.1")
            // the server shares this event loop, and libuv reads at most 32 datagrams per socket per turn
            if (i % 32 === 31) await new Promise((resolve) => setImmediate(resolve))
          }
          await new Promise((resolve) => setTimeout(resolve, 200))
          for (const socket of sockets) socket.close()
          return replies
        })
        // about a fifth of the corpus decodes as a query; most of those must have been answered
        expect(replies).toBeGreaterThan(PACKETS / 10)
        yield* Effect.promise(() =>
          new Promise<void>((resolve) => {
            const socket = Net.connect(bound.tcpPort, "127.0.0.1", () => {
              for (const packet of packets.slice(0, 2000)) {
                const frame = Buffer.alloc(packet.length + 2)
                frame.writeUInt16BE(packet.length, 0)
                packet.copy(frame, 2)
                socket.write(frame)
              }
              socket.end(() => resolve())
            })
            socket.on("error", () => resolve())
          })
        )
        const reply = yield* udp(bound.udpPort, query(`alice.${zone}`, "TXT"))
        expect(reply === null ? null : rcode(reply)).toBe("NOERROR")
        const [overTcp] = yield* tcp(bound.tcpPort, [query(`alice.${zone}`, "TXT")])
        expect(rcode(overTcp)).toBe("NOERROR")
      }).pipe(Effect.provide(source)),
    120_000
  )
})
