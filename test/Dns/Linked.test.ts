import { expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFile, spawnSync } from "node:child_process"
import { DnsServer } from "../../src/Dns/DnsServer.js"
import { RecordSource } from "../../src/Dns/RecordSource.js"
import { linkedKey } from "../../src/Dns/Zone.js"
import { flood, query, rcode, tcp, txtValues, udp } from "./client.js"
import { records, server, zone } from "./fixtures.js"

// `alicenet` is alice's linked naming-system tld (delegated to this nameserver); `unlinked` is nobody's
const tld = "alicenet"
const linkedSource = RecordSource.layerMemory({ alice: records.alice, [linkedKey(tld)]: records.alice })
const expected = records.alice.txt.filter((v) => v !== "no prefix")

const hasDig = spawnSync("dig", ["-v"]).error === undefined
const dig = (args: ReadonlyArray<string>) =>
  Effect.async<string, Error>((resume) => {
    execFile("dig", [...args], { timeout: 10_000 }, (error, stdout) =>
      resume(error ? Effect.fail(error) : Effect.succeed(stdout)))
  })

layer(Layer.scoped(DnsServer, server()).pipe(Layer.provide(linkedSource)))(
  "a user's linked naming-system name",
  (it) => {
    const ask = (name: string, type: string) =>
      Effect.flatMap(DnsServer, (bound) => udp(bound.udpPort, query(name, type))).pipe(
        Effect.map((reply) => {
          expect(reply).not.toBeNull()
          return reply!
        })
      )

    it.effect("answers TXT for the tld as for <handle>.<zone>: one record per identity value, TTL 300, AA", () =>
      Effect.gen(function*() {
        for (const name of [tld, `${tld}.`, "AliceNet"]) {
          const reply = yield* ask(name, "TXT")
          expect(rcode(reply)).toBe("NOERROR")
          expect(reply.flag_aa).toBe(true)
          expect(txtValues(reply)).toEqual(expected)
          expect(reply.answers!.every((a) => a.type === "TXT" && a.ttl === 300)).toBe(true)
        }
        // a second time from the answer cache: the same
        expect(txtValues(yield* ask(tld, "TXT"))).toEqual(expected)
        const bound = yield* DnsServer
        const [overTcp] = yield* tcp(bound.tcpPort, [query(tld, "TXT")])
        expect(overTcp!.flag_aa).toBe(true)
        expect(txtValues(overTcp!)).toEqual(expected)
      }))

    it.effect("_identity.<tld> answers the proof URL; other types NOERROR empty; a name below it NXDOMAIN, all AA", () =>
      Effect.gen(function*() {
        const proof = yield* ask(`_identity.${tld}`, "TXT")
        expect(proof.flag_aa).toBe(true)
        expect(txtValues(proof)).toEqual([records.alice.proofUrl])

        const a = yield* ask(tld, "A")
        expect(rcode(a)).toBe("NOERROR")
        expect(a.flag_aa).toBe(true)
        expect(a.answers).toEqual([])

        const below = yield* ask(`www.${tld}`, "TXT")
        expect(rcode(below)).toBe("NXDOMAIN")
        expect(below.flag_aa).toBe(true)
        // the negative answer is proved by the tld's SOA, naming this nameserver
        const soa = below.authorities![0]!
        expect(soa.name).toBe(tld)
        expect(soa.type === "SOA" && soa.data.mname).toBe(`ns1.${zone}`)
      }))

    it.effect("any other name is REFUSED, without AA: an unlinked tld, a name below it, another zone", () =>
      Effect.gen(function*() {
        for (const name of ["unlinked", "_identity.unlinked", "www.example.com", `alice.${zone}.example`]) {
          const reply = yield* ask(name, "TXT")
          expect(rcode(reply)).toBe("REFUSED")
          expect(reply.flag_aa).toBe(false)
          expect(reply.answers).toEqual([])
        }
      }))

    it.effect.runIf(hasDig)("dig reads the linked name's TXT records, authoritative", () =>
      Effect.gen(function*() {
        const bound = yield* DnsServer
        const full = yield* dig(["@127.0.0.1", "-p", String(bound.udpPort), "+norecurse", "TXT", tld])
        expect(full).toMatch(/status: NOERROR/)
        expect(full).toMatch(/flags: qr aa;/)
        const short = yield* dig(["@127.0.0.1", "-p", String(bound.udpPort), "+short", "TXT", tld])
        expect(short.trim().split("\n").sort()).toEqual(expected.map((v) => `"${v}"`).sort())
        const refused = yield* dig(["@127.0.0.1", "-p", String(bound.udpPort), "TXT", "unlinked"])
        expect(refused).toMatch(/status: REFUSED/)
      }))
  }
)

// TestClock stands still here, so nothing refills until the test moves it
it.scoped("the rate limit covers linked names as it does handles", () =>
  Effect.gen(function*() {
    const bound = yield* server({ rateLimit: { perSecond: 10, burst: 20, slip: 0 } })
    const queries = Array.from({ length: 60 }, (_, i) => query(tld, "TXT", { id: i }))
    expect((yield* flood(bound.udpPort, queries)).length).toBe(20)
  }).pipe(Effect.provide(linkedSource)))
