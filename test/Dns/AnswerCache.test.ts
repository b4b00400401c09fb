import { describe, expect, it } from "@effect/vitest"
import * as DnsPacket from "dns-packet"
import type { Packet } from "dns-packet"
import { Effect, Option } from "effect"
import { makeAnswerCache, plainQuery } from "../../src/Dns/AnswerCache.js"
import { makeAnswerer } from "../../src/Dns/Answerer.js"
import { makeRateLimiter } from "../../src/Dns/RateLimit.js"
import { type IdentityRecords, RecordSource } from "../../src/Dns/RecordSource.js"
import { answer } from "../../src/Dns/Responder.js"
import * as Wire from "../../src/Dns/Wire.js"
import { query, txtValues, udp } from "./client.js"
import { records, server, zone } from "./fixtures.js"

/** An in-memory record source whose records change, with the notices a real one sends (or, `silent`, without). */
const mutableSource = (initial: Readonly<Record<string, IdentityRecords>>) => {
  const map = new Map(Object.entries(initial))
  const listeners = new Set<(handle: string) => void>()
  const service = RecordSource.of({
    lookup: (handle) => Effect.sync(() => Option.fromNullable(map.get(handle))),
    peek: (handle) => map.get(handle) ?? null,
    onChange: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    }
  })
  const set = (handle: string, records: IdentityRecords | undefined, silent = false) => {
    if (records === undefined) map.delete(handle)
    else map.set(handle, records)
    if (!silent) listeners.forEach((listener) => listener(handle))
  }
  return { service, set }
}

const options = { serial: 7 }
const bytes = (packet: Packet) => DnsPacket.encode(packet)

/** What the Effect path (Responder.answer, then Wire.encode for UDP) sends for `message`. */
const general = (message: Buffer, source: RecordSource["Type"]) =>
  Effect.gen(function*() {
    const query = Wire.decode(message)!
    const response = yield* answer(query, zone, options).pipe(Effect.provideService(RecordSource, source))
    return Wire.encode(query, response!, Wire.udpLimit(query))
  })

describe("AnswerCache", () => {
  it("keys plain queries by lowercase name, type, class and EDNS; anything else is not plain", () => {
    const key = (packet: Packet) => plainQuery(bytes(packet))?.key ?? null
    const alice = key(query(`alice.${zone}`, "TXT", { id: 1 }))
    expect(alice).not.toBeNull()
    expect(key(query(`ALiCE.${zone.toUpperCase()}`, "TXT", { id: 2, flags: 0 }))).toBe(alice)
    expect(key(query(`alice.${zone}`, "A"))).not.toBe(alice)
    expect(key(query(`alice.${zone}`, "TXT", { edns: 1232 }))).not.toBe(alice)
    expect(key(query(`alice.${zone}`, "TXT", { edns: 4096 }))).toBe(key(query(`alice.${zone}`, "TXT", { edns: 1232 })))
    const two = {
      ...query(`alice.${zone}`, "TXT"),
      questions: [...query(`a.${zone}`, "TXT").questions!, ...query(`b.${zone}`, "TXT").questions!]
    }
    expect(key(two)).toBeNull()
    expect(key({ ...query(`alice.${zone}`, "TXT"), type: "response" })).toBeNull()
    expect(key({ ...query(`alice.${zone}`, "TXT"), flags: 1 << 11 })).toBeNull() // opcode 1
    expect(plainQuery(Buffer.concat([bytes(query(`alice.${zone}`, "TXT")), Buffer.from([0])]))).toBeNull()
    expect(key(query(`alice.${zone}`, "TXT", { edns: 1232 }))).not.toBeNull()
    const withOption = query(`alice.${zone}`, "TXT", { edns: 1232 })
    const opt = withOption.additionals![0] as DnsPacket.OptAnswer
    expect(key({ ...withOption, additionals: [{ ...opt, options: [{ code: 12, length: 8 }] }] })).toBeNull()
  })

  it("drops every answer built from a handle on invalidate, and keeps the others", () => {
    const cache = makeAnswerCache({ capacity: 100 })
    const entry = (handle: string) => ({
      handle,
      records: null,
      full: Buffer.alloc(0),
      truncated: Buffer.alloc(0),
      fullNames: [],
      truncatedNames: []
    })
    cache.set("a1", entry("alice"))
    cache.set("a2", entry("alice"))
    cache.set("b1", entry("bob"))
    cache.invalidate("alice")
    expect([cache.get("a1"), cache.get("a2"), cache.get("b1")?.handle]).toEqual([undefined, undefined, "bob"])
    for (let i = 0; i < 150; i++) cache.set(`k${i}`, entry(`h${i}`))
    expect(cache.size).toBeLessThanOrEqual(100)
  })

  it.effect("answers byte for byte as the Effect path, first time and from the cache: id, RD, CD, EDNS and 0x20 case as asked", () =>
    Effect.gen(function*() {
      const { service } = mutableSource(records)
      const cache = makeAnswerCache()
      const answerer = makeAnswerer({ zone, answer: options, source: service, cache, limiter: null })
      const CD = 1 << 4
      const asked = [
        query(`alice.${zone}`, "TXT", { id: 1 }),
        query(`alice.${zone}`, "TXT", { id: 2 }),
        query(`AlIcE.${zone}`, "TXT", { id: 3, flags: 0 }),
        query(`ALICE.SHOAL.TEST`, "TXT", { id: 4, flags: CD | DnsPacket.RECURSION_DESIRED }),
        query(`alice.${zone}`, "TXT", { id: 5, edns: 1232 }),
        query(`_IDENTITY.Alice.${zone}`, "TXT", { id: 6 }),
        query(`_identity.alice.${zone}`, "TXT", { id: 7 }),
        query(`alice.${zone}`, "ANY", { id: 8 }),
        query(`alice.${zone}`, "A", { id: 9 }),
        query(`Nobody.${zone}`, "TXT", { id: 10 }),
        query(`nobody.${zone}`, "TXT", { id: 11 }),
        // over 512 bytes: truncated without EDNS, in full with it
        query(`BIG.${zone}`, "TXT", { id: 12 }),
        query(`big.${zone}`, "TXT", { id: 13, edns: 4096 }),
        query(`big.${zone}`, "TXT", { id: 14 })
      ]
      for (const packet of [...asked, ...asked]) {
        const message = bytes(packet)
        const fast = answerer.respond(message, "127.0.0.1")
        expect(Buffer.isBuffer(fast)).toBe(true)
        expect(fast).toEqual(yield* general(message, service))
      }
      expect(cache.size).toBeGreaterThanOrEqual(8)
      const reply = DnsPacket.decode(answerer.respond(bytes(asked[3]!), "127.0.0.1") as Buffer)
      expect(reply.id).toBe(4)
      expect(reply.questions![0]!.name).toBe("ALICE.SHOAL.TEST")
      expect(reply.answers!.map((a) => a.name)).toEqual(reply.answers!.map(() => "ALICE.SHOAL.TEST"))
      expect([reply.flag_cd, reply.flag_rd]).toEqual([true, true])
    }))

  it.effect("sees a change at once: on the record source's notice, and even without one", () =>
    Effect.gen(function*() {
      const { service, set } = mutableSource(records)
      const cache = makeAnswerCache()
      service.onChange(cache.invalidate)
      const answerer = makeAnswerer({ zone, answer: options, source: service, cache, limiter: null })
      const ask = (id: number) =>
        DnsPacket.decode(answerer.respond(bytes(query(`alice.${zone}`, "TXT", { id })), "127.0.0.1") as Buffer)
      expect(txtValues(ask(1))).toHaveLength(3)
      const before = cache.size
      set("alice", { txt: ["btc:changed"], proofUrl: "" })
      expect(cache.size).toBe(before - 1)
      expect(txtValues(ask(2))).toEqual(["btc:changed"])
      set("alice", { txt: ["btc:again"], proofUrl: "" }, true)
      expect(txtValues(ask(3))).toEqual(["btc:again"])
      set("alice", undefined)
      expect((ask(4) as unknown as { rcode: string }).rcode).toBe("NXDOMAIN")
    }))

  it.effect("leaves a query whose records are not at hand to the lookup, and rate limits cached answers", () =>
    Effect.gen(function*() {
      const { service } = mutableSource(records)
      const unknown = RecordSource.of({ ...service, peek: () => undefined })
      const lazy = makeAnswerer({ zone, answer: options, source: unknown, cache: makeAnswerCache(), limiter: null })
      const pending = lazy.respond(bytes(query(`alice.${zone}`, "TXT")), "127.0.0.1")
      expect(pending !== null && !Buffer.isBuffer(pending) && pending.handle).toBe("alice")

      const limiter = makeRateLimiter({ perSecond: 1, burst: 2, slip: 2 }, () => 0)
      const limited = makeAnswerer({ zone, answer: options, source: service, cache: makeAnswerCache(), limiter })
      const replies = Array.from(
        { length: 6 },
        (_, id) => limited.respond(bytes(query(`alice.${zone}`, "TXT", { id })), "10.0.0.1")
      )
      const decoded = replies.map((r) => r === null ? null : DnsPacket.decode(r as Buffer))
      expect(decoded.map((r) => r === null ? "drop" : r.flag_tc ? "slip" : "send")).toEqual([
        "send",
        "send",
        "drop",
        "slip",
        "drop",
        "slip"
      ])
      expect(decoded[3]!.id).toBe(3)
      expect(decoded[3]!.answers).toEqual([])
    }))

  it.scoped("over UDP: a server's cached answer follows a change notice from its record source", () =>
    Effect.gen(function*() {
      const { service, set } = mutableSource(records)
      const bound = yield* server().pipe(Effect.provideService(RecordSource, service))
      const ask = (name: string) => Effect.map(udp(bound.udpPort, query(name, "TXT")), (reply) => txtValues(reply!))
      expect(yield* ask(`alice.${zone}`)).toHaveLength(3)
      expect(yield* ask(`ALICE.${zone}`)).toHaveLength(3)
      set("alice", { txt: ["nostr:npub1new"], proofUrl: "" })
      expect(yield* ask(`alice.${zone}`)).toEqual(["nostr:npub1new"])
      expect(yield* ask(`aLiCe.${zone}`)).toEqual(["nostr:npub1new"])
    }))
})
