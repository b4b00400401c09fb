/**
 * Child process for bench/dns.ts: `tsx bench/dns-server.ts ours|baseline` binds UDP on 127.0.0.1, an
 * ephemeral port, and reports it to the parent over IPC.
 */
import { NodeRuntime } from "@effect/platform-node"
import * as DnsPacket from "dns-packet"
import { Effect, Layer } from "effect"
import * as Dgram from "node:dgram"
import { pathToFileURL } from "node:url"
import { DnsServer } from "../src/Dns/DnsServer.js"
import { txt } from "../src/Dns/Records.js"
import { RecordSource } from "../src/Dns/RecordSource.js"
import { Supervisor } from "../src/Supervisor.js"

export const zone = "bench.local"
export const name = `alice.${zone}`

export const records = {
  alice: {
    txt: [
      "btc:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      "nostr:npub1alicealicealice",
      "pfp:https://example.com/a.png"
    ],
    proofUrl: `https://${zone}/api/identity/alice`
  },
  bob: { txt: ["bio:hello"], proofUrl: `https://${zone}/api/identity/bob` },
  carol: { txt: ["link:https://example.com/carol"], proofUrl: `https://${zone}/api/identity/carol` }
}

const ours = Effect.gen(function*() {
  const bound = yield* DnsServer.make({ host: "127.0.0.1", port: 0, zone, rateLimit: false })
  process.send?.({ port: bound.udpPort })
  return yield* Effect.never
}).pipe(Effect.scoped, Effect.provide(Layer.merge(RecordSource.layerMemory(records), Supervisor.Default)))

/** The floor: dgram + dns-packet, the same three TXT records for every query, no lookup, no checks. */
const baseline = () => {
  const answers = records.alice.txt.map((value) => txt(name, value))
  const socket = Dgram.createSocket("udp4")
  socket.on("message", (message, peer) => {
    try {
      const query = DnsPacket.decode(message)
      const reply = DnsPacket.encode({
        id: query.id,
        type: "response",
        flags: DnsPacket.AUTHORITATIVE_ANSWER,
        questions: query.questions,
        answers
      })
      socket.send(reply, peer.port, peer.address)
    } catch {
      // garbage: drop
    }
  })
  socket.bind(0, "127.0.0.1", () => process.send?.({ port: socket.address().port }))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // the parent reads CPU time around each slice: queries per CPU-second does not depend on the neighbours
  process.on("message", (message) => {
    if (message === "usage") process.send?.({ usage: process.cpuUsage() })
  })
  if (process.argv[2] === "baseline") baseline()
  else NodeRuntime.runMain(ours)
}
