import { expect, layer } from "@effect/vitest"
import * as DnsPacket from "dns-packet"
import { Effect, Layer, Option } from "effect"
import * as Dgram from "node:dgram"
import { DnsServer } from "../../src/Dns/DnsServer.js"
import { RecordSource } from "../../src/Dns/RecordSource.js"
import { RecordSourceLive } from "../../src/Identity/RecordSourceLive.js"
import { createAgent, signUp, TestApp, uniqueHandle } from "../support/TestApp.js"
import { makeNpub } from "./support.js"

/** One UDP TXT query; the TXT strings of the answer section (or the rcode when there are none). */
const digTxt = (port: number, name: string) =>
  Effect.async<{ rcode: string; txt: Array<string> }>((resume) => {
    const socket = Dgram.createSocket("udp4")
    const timer = setTimeout(() => {
      socket.close()
      resume(Effect.dieMessage(`no DNS answer for ${name}`))
    }, 2_000)
    socket.on("message", (msg) => {
      clearTimeout(timer)
      socket.close()
      const packet = DnsPacket.decode(msg)
      const txt = (packet.answers ?? []).flatMap((a) =>
        a.type === "TXT" ? [Buffer.concat(a.data as Array<Buffer>).toString("utf8")] : []
      )
      // dns-packet decodes the rcode name but its types omit it
      resume(Effect.succeed({ rcode: (packet as { rcode?: string }).rcode ?? "NOERROR", txt }))
    })
    const query = DnsPacket.encode({ type: "query", id: 7, questions: [{ name, type: "TXT", class: "IN" }] })
    socket.send(query, port, "127.0.0.1")
  })

// the HTTP app and the DNS record source in one graph, so they share ProfileChanges as in production
const AppWithRecordSource = RecordSourceLive.pipe(Layer.provideMerge(TestApp()))

layer(AppWithRecordSource)("DNS record source (database)", (it) => {
  it.effect("lookup serves prefixed TXT values and the proof URL; a PATCH is visible to the next lookup", () =>
    Effect.gen(function*() {
      const source = yield* RecordSource
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key, uniqueHandle("dns"))
      const handle = agent.agent.handle
      const { npub } = makeNpub()
      yield* agent.client.profiles.updateProfile({ payload: { identity: { btc: "bc1qexample", nostr: npub } } })
      const first = yield* source.lookup(handle)
      expect(Option.getOrThrow(first)).toEqual({
        txt: ["btc:bc1qexample", `nostr:${npub}`],
        proofUrl: `http://localhost:8080/api/identity/${handle}`
      })
      // cached now: peek gives the same records synchronously, until the change drops them
      expect(source.peek(handle)).toBe(Option.getOrThrow(yield* source.lookup(handle)))
      expect(source.peek(handle)).toEqual(Option.getOrThrow(first))
      // the change must still show up on the very next lookup
      yield* agent.client.profiles.updateProfile({
        payload: { identity: { btc: null, pfp: "https://example.com/p.png" } }
      })
      expect(source.peek(handle)).toBeUndefined()
      const next = Option.getOrThrow(yield* source.lookup(handle))
      expect(next.txt).toEqual(["pfp:https://example.com/p.png", `nostr:${npub}`])
      expect(source.peek(handle)).toBe(next)
      const nobody = uniqueHandle("nobody")
      expect(source.peek(nobody)).toBeUndefined()
      expect(Option.isNone(yield* source.lookup(nobody))).toBe(true)
      expect(source.peek(nobody)).toBeNull()
    }))

  it.scoped("end to end over UDP: TXT answers follow a profile change at once", () =>
    Effect.gen(function*() {
      const dns = yield* DnsServer.make({ host: "127.0.0.1", port: 0, zone: "shoal.test", rateLimit: false })
      const human = yield* signUp(uniqueHandle("dig"))
      const name = `${human.user.handle}.shoal.test`
      yield* human.client.profiles.updateProfile({ payload: { identity: { btc: "bc1qfirst", info: "hello" } } })
      expect((yield* digTxt(dns.udpPort, name)).txt).toEqual(["btc:bc1qfirst", "bio:hello"])
      yield* human.client.profiles.updateProfile({ payload: { identity: { btc: "bc1qsecond", info: null } } })
      expect((yield* digTxt(dns.udpPort, name)).txt).toEqual(["btc:bc1qsecond"])
      expect((yield* digTxt(dns.udpPort, `_identity.${name}`)).txt).toEqual([
        `http://localhost:8080/api/identity/${human.user.handle}`
      ])
      expect((yield* digTxt(dns.udpPort, `${uniqueHandle("nobody")}.shoal.test`)).rcode).toBe("NXDOMAIN")
    }))
})
