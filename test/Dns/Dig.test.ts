import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile, spawnSync } from "node:child_process"
import { DnsServer } from "../../src/Dns/DnsServer.js"
import { records, serverLayer, zone } from "./fixtures.js"

const hasDig = spawnSync("dig", ["-v"]).error === undefined

const dig = (args: ReadonlyArray<string>) =>
  Effect.async<string, Error>((resume) => {
    execFile("dig", [...args], { timeout: 10_000 }, (error, stdout) =>
      resume(error ? Effect.fail(error) : Effect.succeed(stdout)))
  })

const at = (port: number) => ["@127.0.0.1", "-p", String(port)]

const expected = records.alice.txt.filter((v) => v.includes(":")).map((v) => `"${v}"`)

layer(serverLayer)("dig against the responder", (it) => {
  it.effect.runIf(hasDig)("reads the TXT records over UDP and over TCP", () =>
    Effect.gen(function*() {
      const bound = yield* DnsServer
      for (const [transport, port] of [["+notcp", bound.udpPort], ["+tcp", bound.tcpPort]] as const) {
        const full = yield* dig([...at(port), transport, "+norecurse", "TXT", `alice.${zone}`])
        expect(full).toMatch(/status: NOERROR/)
        expect(full).toMatch(/flags: qr aa;/)
        expect(full).toMatch(new RegExp(`alice\\.${zone.replaceAll(".", "\\.")}\\.\\s+300\\s+IN\\s+TXT`))
        const short = yield* dig([...at(port), transport, "+short", "TXT", `alice.${zone}`])
        expect(short.trim().split("\n").sort()).toEqual([...expected].sort())
      }
    }))

  it.effect.runIf(hasDig)(
    "gets a truncated UDP answer, the full one over TCP, and NXDOMAIN with the SOA",
    () =>
      Effect.gen(function*() {
        const bound = yield* DnsServer
        // port 0 gives UDP and TCP different ports, so dig's own retry over TCP is asked for separately
        const udp = yield* dig([...at(bound.udpPort), "+ignore", "+bufsize=1232", "TXT", `big.${zone}`])
        expect(udp).toMatch(/flags: qr aa tc[ ;]/)
        expect(udp).toMatch(/ANSWER: 0,/)
        const tcp = yield* dig([...at(bound.tcpPort), "+tcp", "+short", "TXT", `big.${zone}`])
        expect(tcp.trim().split("\n").length).toBe(records.big.txt.length)
        const nx = yield* dig([...at(bound.udpPort), "TXT", `nobody.${zone}`])
        expect(nx).toMatch(/status: NXDOMAIN/)
        expect(nx).toMatch(/AUTHORITY: 1,/)
      })
  )
})
