import { Config, Effect } from "effect"
import ipaddr from "ipaddr.js"
import { lookup } from "node:dns/promises"

/**
 * Every IPv6 form that embeds an IPv4 address, other than IPv4-mapped `::ffff:a.b.c.d` (how a dual-stack socket names
 * an IPv4 peer, judged as that IPv4 address), is refused whatever it embeds: IPv4-compatible `::a.b.c.d`
 * (deprecated by RFC 4291; `::127.0.0.1` reaches loopback on some stacks), IPv4-translated `::ffff:0:a.b.c.d`,
 * NAT64 `64:ff9b::/96` and local-use `64:ff9b:1::/48` (made by a DNS64 inside the deployer's own network, where
 * they reach its private ranges), 6to4 `2002::/16` (deprecated by RFC 7526) and Teredo `2001::/32`. A public
 * receiver has a native address; decoding these to allow some would only widen what the guard must get right.
 */
const embeddingForms: Record<string, string> = {
  rfc6145: "an IPv4-translated IPv6 address",
  rfc6052: "a NAT64 address",
  "6to4": "a 6to4 address",
  teredo: "a Teredo address"
}
const embeddingForm = (ip: ipaddr.IPv6): string | undefined =>
  ip.parts.slice(0, 6).every((p) => p === 0) ? "an IPv4-compatible IPv6 address" : embeddingForms[ip.range()]

/**
 * IPv6 with a dotted IPv4 tail (`::127.0.0.1`) rewritten to hex words: ipaddr.js reads `::a.b.c.d` as the
 * IPv4-mapped `::ffff:a.b.c.d`, which would judge `::8.8.8.8` (IPv4-compatible) as 8.8.8.8. Undefined when an
 * octet is out of range.
 */
const dottedTailToHex = (s: string): string | undefined => {
  const m = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s)
  if (m === null) return s
  const [a, b, c, d] = [m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number]
  if ([a, b, c, d].some((o) => o > 255)) return undefined
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
}

/**
 * Why an address must not be reached, or undefined when it is a public unicast address. Only what ipaddr.js
 * calls plain `unicast` passes: loopback, private, link-local (cloud metadata), carrier-grade NAT, reserved,
 * documentation, multicast, site-local and every other special range are refused, and so is anything that does
 * not parse.
 */
export const blockedReason = (address: string): string | undefined => {
  const bare = dottedTailToHex(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""))
  if (bare === undefined || !ipaddr.isValid(bare)) return `${address} is not an IP address`
  const ip = ipaddr.parse(bare)
  if (ip.kind() === "ipv6") {
    const ip6 = ip as ipaddr.IPv6
    if (ip6.isIPv4MappedAddress()) {
      const mapped = ip6.toIPv4Address()
      return mapped.range() === "unicast"
        ? undefined
        : `${bare} is the IPv4-mapped form of ${mapped.toString()}, a loopback, private, link-local or reserved address`
    }
    const form = embeddingForm(ip6)
    if (form !== undefined) return `${bare} is ${form}, which embeds an IPv4 address; it is not accepted`
  }
  return ip.range() === "unicast"
    ? undefined
    : `${bare} is a loopback, private, link-local or reserved address (${ip.range()})`
}

export const isBlockedAddress = (address: string): boolean => blockedReason(address) !== undefined

export type Verdict =
  | { readonly ok: true; readonly addresses: ReadonlyArray<string> }
  | { readonly ok: false; readonly reason: string }

const resolve = (host: string) =>
  Effect.tryPromise(() => lookup(host, { all: true, verbatim: true })).pipe(
    Effect.timeout("2 seconds"),
    Effect.map((r) => r.map((a) => a.address)),
    Effect.orElseSucceed((): ReadonlyArray<string> => [])
  )

/**
 * Checks a webhook URL: credentials are always refused; a literal or resolved address that is not public unicast
 * (see `blockedReason`) is refused unless WEBHOOK_ALLOW_PRIVATE=true.
 * A name that does not resolve now is allowed (`addresses` empty): delivery checks again, since DNS answers change.
 */
export class UrlGuard extends Effect.Service<UrlGuard>()("Webhooks/UrlGuard", {
  effect: Effect.gen(function*() {
    const allowPrivate = yield* Config.boolean("WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false))
    const check = (url: string): Effect.Effect<Verdict> =>
      Effect.gen(function*() {
        const u = new URL(url)
        // a user or password in the URL would be stored, shown in the delivery log and sent to the receiver
        if (u.username !== "" || u.password !== "") {
          return {
            ok: false,
            reason: "a webhook URL must not carry credentials (a user name or password before the host)"
          }
        }
        const host = u.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "")
        if (ipaddr.isValid(host)) {
          const reason = allowPrivate ? undefined : blockedReason(host)
          return reason !== undefined ? { ok: false, reason } : { ok: true, addresses: [host] }
        }
        if (!allowPrivate && (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal"))) {
          return { ok: false, reason: `${host} is a local name` }
        }
        const addresses = yield* resolve(host)
        const bad = allowPrivate ? undefined : addresses.find(isBlockedAddress)
        return bad !== undefined
          ? { ok: false, reason: `${host} resolves to ${bad}: ${blockedReason(bad)}` }
          : { ok: true, addresses }
      })
    return { check, allowPrivate } as const
  })
}) {}
