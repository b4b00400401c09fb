import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DnsServer } from "../../src/Dns/DnsServer.js"
import { query, rcode, strings, tcp, txtValues, udp } from "./client.js"
import { records, serverLayer, zone } from "./fixtures.js"

layer(serverLayer)("DnsServer over UDP and TCP", (it) => {
  const ask = (name: string, type: string, options = {}) =>
    Effect.flatMap(DnsServer, (bound) => udp(bound.udpPort, query(name, type, options))).pipe(
      Effect.map((reply) => {
        expect(reply).not.toBeNull()
        return reply!
      })
    )

  it.effect("answers one TXT record per prefixed identity value, TTL 300, authoritative", () =>
    Effect.gen(function*() {
      const reply = yield* ask(`alice.${zone}`, "TXT")
      expect(rcode(reply)).toBe("NOERROR")
      expect(reply.flag_aa).toBe(true)
      expect(txtValues(reply)).toEqual(records.alice.txt.filter((v) => v !== "no prefix"))
      expect(reply.answers!.every((a) => a.type === "TXT" && a.ttl === 300 && a.name === `alice.${zone}`)).toBe(true)
    }))

  it.effect("answers the proof URL at _identity.<handle>", () =>
    Effect.gen(function*() {
      const reply = yield* ask(`_identity.alice.${zone}`, "TXT")
      expect(reply.flag_aa).toBe(true)
      expect(txtValues(reply)).toEqual([records.alice.proofUrl])
      expect(reply.answers![0].type === "TXT" && reply.answers![0].ttl).toBe(300)
    }))

  it.effect("serves SOA and NS at the apex", () =>
    Effect.gen(function*() {
      const soa = yield* ask(zone, "SOA")
      expect(soa.flag_aa).toBe(true)
      const record = soa.answers![0]
      expect(record.type).toBe("SOA")
      if (record.type !== "SOA") return
      expect(record.data.mname).toBe(`ns1.${zone}`)
      expect(record.data.rname).toBe(`hostmaster.${zone}`)
      expect(record.data.serial).toBeTypeOf("number")
      const ns = yield* ask(zone, "NS")
      expect(ns.answers!.map((a) => [a.type, a.type === "NS" && a.data])).toEqual([["NS", `ns1.${zone}`]])
    }))

  it.effect("answers other types for an existing name with NOERROR, no answers and the SOA", () =>
    Effect.gen(function*() {
      for (const name of [`alice.${zone}`, `_identity.alice.${zone}`, zone]) {
        const reply = yield* ask(name, "AAAA")
        expect(rcode(reply)).toBe("NOERROR")
        expect(reply.answers).toEqual([])
        expect(reply.authorities!.map((a) => a.type)).toEqual(["SOA"])
      }
    }))

  it.effect("answers NXDOMAIN with the SOA for unknown names in the zone", () =>
    Effect.gen(function*() {
      for (const name of [`nobody.${zone}`, `_identity.nobody.${zone}`, `a.b.alice.${zone}`, `bad!label.${zone}`]) {
        const reply = yield* ask(name, "TXT")
        expect(rcode(reply)).toBe("NXDOMAIN")
        expect(reply.flag_aa).toBe(true)
        expect(reply.authorities!.map((a) => [a.type, a.name])).toEqual([["SOA", zone]])
      }
    }))

  it.effect("refuses names outside the zone, without AA", () =>
    Effect.gen(function*() {
      for (const name of ["example.com", `evilshoal.test`, "test", "."]) {
        const reply = yield* ask(name, "TXT")
        expect(rcode(reply)).toBe("REFUSED")
        expect(reply.flag_aa).toBe(false)
        expect(reply.answers).toEqual([])
      }
    }))

  it.effect("answers ANY minimally (RFC 8482)", () =>
    Effect.gen(function*() {
      const handle = yield* ask(`alice.${zone}`, "ANY")
      expect(handle.answers!.length).toBe(1)
      const empty = yield* ask(`empty.${zone}`, "ANY")
      expect(empty.answers!.map((a) => a.type === "HINFO" && a.data.cpu)).toEqual(["RFC8482"])
      const apex = yield* ask(zone, "ANY")
      expect(apex.answers!.map((a) => a.type)).toEqual(["SOA"])
    }))

  it.effect("matches names case-insensitively and echoes the question as asked", () =>
    Effect.gen(function*() {
      const reply = yield* ask(`AlIcE.ShOaL.TeSt`, "TXT")
      expect(reply.questions).toEqual([{ name: "AlIcE.ShOaL.TeSt", type: "TXT", class: "IN" }])
      expect(txtValues(reply)).toEqual(records.alice.txt.filter((v) => v !== "no prefix"))
    }))

  it.effect("splits a value over 255 bytes into character-strings of one record", () =>
    Effect.gen(function*() {
      const reply = yield* ask(`longbio.${zone}`, "TXT", { edns: 1232 })
      expect(reply.answers!.length).toBe(1)
      expect(strings(reply.answers![0]).map((s) => s.length)).toEqual([255, 255, 94])
      expect(txtValues(reply)).toEqual(records.longbio.txt)
    }))

  it.effect("replies with OPT to EDNS, truncates over 1232 bytes on UDP, and answers in full over TCP", () =>
    Effect.gen(function*() {
      const bound = yield* DnsServer
      const small = yield* ask(`alice.${zone}`, "TXT", { edns: 4096 })
      const opt = small.additionals!.find((a) => a.type === "OPT")
      expect(opt?.type === "OPT" && opt.udpPayloadSize).toBe(1232)
      const truncated = yield* ask(`big.${zone}`, "TXT", { edns: 4096 })
      expect(truncated.flag_tc).toBe(true)
      expect(truncated.answers).toEqual([])
      expect(truncated.additionals!.map((a) => a.type)).toEqual(["OPT"])
      const [full] = yield* tcp(bound.tcpPort, [query(`big.${zone}`, "TXT", { edns: 4096 })])
      expect(full.flag_tc).toBe(false)
      expect(txtValues(full)).toEqual(records.big.txt)
    }))

  it.effect("limits UDP answers to 512 bytes without EDNS", () =>
    Effect.gen(function*() {
      const reply = yield* ask(`big.${zone}`, "TXT")
      expect(reply.flag_tc).toBe(true)
      expect(reply.additionals).toEqual([])
      const fits = yield* ask(`alice.${zone}`, "TXT")
      expect(fits.flag_tc).toBe(false)
    }))

  it.effect("answers several pipelined queries on one TCP connection", () =>
    Effect.gen(function*() {
      const bound = yield* DnsServer
      const names = [`alice.${zone}`, `nobody.${zone}`, `_identity.big.${zone}`, zone]
      const queries = names.map((name, i) => query(name, i === 3 ? "SOA" : "TXT", { id: 100 + i }))
      const replies = yield* tcp(bound.tcpPort, queries)
      const byId = new Map(replies.map((r) => [r.id, rcode(r)]))
      expect([...byId.entries()].sort()).toEqual([
        [100, "NOERROR"],
        [101, "NXDOMAIN"],
        [102, "NOERROR"],
        [103, "NOERROR"]
      ])
    }))

  it.effect("answers SERVFAIL when the record source fails, and keeps serving", () =>
    Effect.gen(function*() {
      const failed = yield* ask(`boom.${zone}`, "TXT")
      expect(rcode(failed)).toBe("SERVFAIL")
      const next = yield* ask(`alice.${zone}`, "TXT")
      expect(rcode(next)).toBe("NOERROR")
    }))

  it.effect("answers NOTIMP to other opcodes, FORMERR to two questions, and nothing to a response", () =>
    Effect.gen(function*() {
      const bound = yield* DnsServer
      const notify = yield* ask(`alice.${zone}`, "SOA", { flags: 4 << 11 })
      expect(rcode(notify)).toBe("NOTIMP")
      const two = query(`alice.${zone}`, "TXT")
      two.questions!.push({ name: zone, type: "SOA", class: "IN" })
      expect(rcode((yield* udp(bound.udpPort, two))!)).toBe("FORMERR")
      const response = { ...query(`alice.${zone}`, "TXT"), type: "response" as const }
      expect(yield* udp(bound.udpPort, response, 300)).toBeNull()
    }))
})
