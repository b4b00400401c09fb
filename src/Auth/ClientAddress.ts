import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Option } from "effect"
import ipaddr from "ipaddr.js"

/**
 * The address a request came from: the socket's peer, or with `trustProxy` (one reverse proxy in front, which
 * appends the address it saw) the last `X-Forwarded-For` entry. Earlier entries are whatever the client sent.
 */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  if (trustProxy) {
    const forwarded = request.headers["x-forwarded-for"]?.split(",").map((s) => s.trim()).filter((s) => s !== "")
    const last = forwarded?.at(-1)
    if (last !== undefined) return last
  }
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

/**
 * The key a per-address limit counts under: an IPv4 address (also IPv4-mapped IPv6) as it is, an IPv6 address by
 * its /64, since one host is routinely given a whole /64 and could otherwise step through it.
 */
export const limitKey = (address: string): string => {
  try {
    const parsed = ipaddr.process(address.replace(/%.*$/, ""))
    if (parsed.kind() === "ipv4") return parsed.toString()
    return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(":")}::/64`
  } catch {
    return address
  }
}
