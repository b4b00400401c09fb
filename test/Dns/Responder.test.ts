import { describe, expect, it } from "@effect/vitest"
import type { Packet } from "dns-packet"
import { Effect } from "effect"
import { answer } from "../../src/Dns/Responder.js"
import { Rcode } from "../../src/Dns/Wire.js"
import { query } from "./client.js"
import { source, zone } from "./fixtures.js"

const options = { serial: 1 }
const rcodeOf = (packet: Packet | null) => (packet?.flags ?? -1) & 0xf

describe("Responder.answer", () => {
  it.effect("sends nothing back to a response", () =>
    Effect.gen(function*() {
      const response = yield* answer({ ...query(`alice.${zone}`, "TXT"), type: "response" }, zone, options)
      expect(response).toBeNull()
    }).pipe(Effect.provide(source)))

  it.effect("answers FORMERR to no question, and without echoing a name it cannot reproduce", () =>
    Effect.gen(function*() {
      const none = yield* answer({ ...query(zone, "SOA"), questions: [] }, zone, options)
      expect(rcodeOf(none)).toBe(Rcode.FORMERR)
      const binary = yield* answer(query(`a\u00e9\ufffd.${zone}`, "TXT"), zone, options)
      expect(rcodeOf(binary)).toBe(Rcode.FORMERR)
      expect(binary!.questions).toEqual([])
    }).pipe(Effect.provide(source)))

  it.effect("answers BADVERS to EDNS versions above 0", () =>
    Effect.gen(function*() {
      const q = query(`alice.${zone}`, "TXT", { edns: 1232 })
      const opt = q.additionals![0]
      if (opt.type === "OPT") opt.ednsVersion = 1
      const response = yield* answer(q, zone, options)
      const replyOpt = response!.additionals!.find((a) => a.type === "OPT")
      expect(rcodeOf(response)).toBe(0)
      expect(replyOpt?.type === "OPT" && replyOpt.extendedRcode).toBe(1)
    }).pipe(Effect.provide(source)))

  it.effect("refuses other classes and zone transfers", () =>
    Effect.gen(function*() {
      const chaos = yield* answer(
        { ...query(zone, "TXT"), questions: [{ name: zone, type: "TXT", class: "CH" }] },
        zone,
        options
      )
      expect(rcodeOf(chaos)).toBe(Rcode.REFUSED)
      const axfr = yield* answer(query(zone, "AXFR"), zone, options)
      expect(rcodeOf(axfr)).toBe(Rcode.REFUSED)
    }).pipe(Effect.provide(source)))

  it.effect("serves ns1.<zone> when its address is configured, with glue for the apex NS", () =>
    Effect.gen(function*() {
      const withAddress = { ...options, nsAddress: "192.0.2.53" }
      const a = yield* answer(query(`ns1.${zone}`, "A"), zone, withAddress)
      expect(a!.answers!.map((r) => r.type === "A" && r.data)).toEqual(["192.0.2.53"])
      const ns = yield* answer(query(zone, "NS"), zone, withAddress)
      expect(ns!.additionals!.map((r) => r.type)).toEqual(["A"])
    }).pipe(Effect.provide(source)))
})
