import { Effect, Layer } from "effect"
import { DnsServer } from "../../src/Dns/DnsServer.js"
import { type IdentityRecords, RecordSource } from "../../src/Dns/RecordSource.js"
import { Supervisor } from "../../src/Supervisor.js"

export const zone = "shoal.test"

const proof = (handle: string) => `https://shoal.test/api/identity/${handle}`

export const records: Record<string, IdentityRecords> = {
  alice: {
    txt: [
      "btc:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      "nostr:npub1alice",
      "pfp:https://example.com/a.png",
      "no prefix"
    ],
    proofUrl: proof("alice")
  },
  longbio: { txt: [`bio:${"b".repeat(600)}`], proofUrl: proof("longbio") },
  big: {
    txt: Array.from({ length: 12 }, (_, i) => `link:https://example.com/${i}/${"x".repeat(170)}`),
    proofUrl: proof("big")
  },
  empty: { txt: [], proofUrl: "" }
}

/** The memory source, except that `boom` dies in the lookup, as a broken database would, and `slow` hangs. */
export const source = Layer.effect(
  RecordSource,
  Effect.map(RecordSource, (memory) =>
    RecordSource.of({
      lookup: (handle) =>
        handle === "boom"
          ? Effect.die(new Error("database on fire"))
          : handle === "slow"
          ? Effect.never
          : memory.lookup(handle),
      peek: (handle) => handle === "boom" || handle === "slow" ? undefined : memory.peek(handle),
      onChange: memory.onChange
    }))
).pipe(Layer.provide(RecordSource.layerMemory(records)))

export const server = (options: Partial<Parameters<typeof DnsServer.make>[0]> = {}) =>
  DnsServer.make({ host: "127.0.0.1", port: 0, zone, rateLimit: false, ...options }).pipe(
    Effect.provide(Supervisor.Default)
  )

export const serverLayer = Layer.scoped(DnsServer, server()).pipe(Layer.provide(source))
