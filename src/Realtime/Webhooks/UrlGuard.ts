import { Config, Effect } from "effect"
import ipaddr from "ipaddr.js"
import { lookup } from "node:dns/promises"

/** Ranges a webhook must never reach: loopback, private, link-local (cloud metadata), and the like. */
const blocked = new Set([
  "unspecified",
  "broadcast",
  "multicast",
  "linkLocal",
  "loopback",
  "private",
  "reserved",
  "carrierGradeNat",
  "uniqueLocal",
  "ipv4Mapped",
  "rfc6145",
  "rfc6052",
  "6to4",
  "teredo",
  "benchmarking",
  "amt",
  "as112",
  "as112v6",
  "orchid2",
  "droneRemoteIdProtocolEntityTags",
  "deprecated"
])

export const isBlockedAddress = (address: string): boolean => {
  if (!ipaddr.isValid(address)) return true
  let ip = ipaddr.parse(address)
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address()
  return blocked.has(ip.range())
}

export type Verdict =
  | { readonly ok: true; readonly addresses: ReadonlyArray<string> }
  | { readonly ok: false; readonly reason: string }

const resolve = (host: string) =>
  Effect.tryPromise(() => lookup(host, { all: true, verbatim: true })).pipe(
    Effect.timeout("2 seconds"),
    Effect.map((r) => r.map((a) => a.address)),
    Effect.option
  )

/**
 * Checks a webhook URL's host. A literal or resolved private address is refused unless WEBHOOK_ALLOW_PRIVATE=true.
 * A name that does not resolve now is allowed (`addresses` empty): delivery checks again, since DNS answers change.
 */
export class UrlGuard extends Effect.Service<UrlGuard>()("Webhooks/UrlGuard", {
  effect: Effect.gen(function*() {
    const allowPrivate = yield* Config.boolean("WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false))
    const check = (url: string): Effect.Effect<Verdict> =>
      Effect.gen(function*() {
        const u = new URL(url)
        const host = u.hostname.replace(/^\[|\]$/g, "")
        if (ipaddr.isValid(host)) {
          return !allowPrivate && isBlockedAddress(host)
            ? { ok: false, reason: `${host} is a loopback, private, link-local or reserved address` }
            : { ok: true, addresses: [host] }
        }
        if (!allowPrivate && (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal"))) {
          return { ok: false, reason: `${host} is a local name` }
        }
        const resolved = yield* resolve(host)
        const addresses = resolved._tag === "Some" ? resolved.value : []
        const bad = allowPrivate ? undefined : addresses.find(isBlockedAddress)
        return bad !== undefined
          ? { ok: false, reason: `${host} resolves to ${bad}, a loopback, private, link-local or reserved address` }
          : { ok: true, addresses }
      })
    return { check, allowPrivate } as const
  })
}) {}
