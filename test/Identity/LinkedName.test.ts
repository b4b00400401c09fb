import { expect, layer } from "@effect/vitest"
import type { DecodedPacket } from "dns-packet"
import { Effect, Layer } from "effect"
import { DnsServer } from "../../src/Dns/DnsServer.js"
import { RecordSourceLive } from "../../src/Identity/RecordSourceLive.js"
import { query, rcode, txtValues, udp } from "../Dns/client.js"
import { signUp, TestApp, uniqueHandle } from "../support/TestApp.js"

/** A tld no other test uses (tlds are unique across accounts, and a PostgreSQL test database is shared). */
const uniqueTld = () => uniqueHandle("t").replace(/[^a-z0-9]/g, "")

// the HTTP app and the DNS record source in one graph, so they share ProfileChanges as in production
const AppWithRecordSource = RecordSourceLive.pipe(Layer.provideMerge(TestApp()))

layer(AppWithRecordSource)("DNS: a user's linked naming-system name (database)", (it) => {
  it.scoped("the linked tld answers TXT like <handle>.<zone>, authoritative; follows the profile; others REFUSED", () =>
    Effect.gen(function*() {
      const dns = yield* DnsServer.make({ host: "127.0.0.1", port: 0, zone: "shoal.test", rateLimit: false })
      const ask = (name: string) =>
        Effect.map(udp(dns.udpPort, query(name, "TXT")), (reply): DecodedPacket => {
          expect(reply).not.toBeNull()
          return reply!
        })
      const human = yield* signUp(uniqueHandle("hns"))
      const tld = uniqueTld()
      yield* human.client.profiles.updateProfile({ payload: { identity: { hns: tld, btc: "bc1qlinked" } } })
      yield* human.client.domains.setDomain({ path: { tld }, payload: { domain_mode: "profile" } })
      const linked = yield* ask(tld)
      expect(rcode(linked)).toBe("NOERROR")
      expect(linked.flag_aa).toBe(true)
      expect(txtValues(linked)).toEqual(["btc:bc1qlinked", `hns:${tld}`])
      expect(txtValues(yield* ask(`${human.user.handle}.shoal.test`))).toEqual(txtValues(linked))
      expect(txtValues(yield* ask(`_identity.${tld}`))).toEqual([
        `http://localhost:8080/api/identity/${human.user.handle}`
      ])
      expect(rcode(yield* ask(`www.${tld}`))).toBe("NXDOMAIN")

      // a profile change shows on the next query, past the answer cache
      yield* human.client.profiles.updateProfile({ payload: { identity: { btc: "bc1qchanged" } } })
      expect(txtValues(yield* ask(tld))).toEqual(["btc:bc1qchanged", `hns:${tld}`])
      // once its hns names something else, the tld is no longer the user's to serve
      yield* human.client.profiles.updateProfile({ payload: { identity: { hns: uniqueTld() } } })
      const dropped = yield* ask(tld)
      expect(rcode(dropped)).toBe("REFUSED")
      expect(dropped.flag_aa).toBe(false)
      expect(rcode(yield* ask(uniqueTld()))).toBe("REFUSED")
    }))
})
