import type { Answer } from "dns-packet"

export const TTL = 300
/** SOA minimum: how long resolvers cache NXDOMAIN/NODATA, short so a new handle shows up quickly. */
export const NEGATIVE_TTL = 60

const MAX_CHARACTER_STRING = 255

/**
 * RFC 1035 character-strings hold at most 255 bytes; longer values span several in one record. Each is cut on a
 * character boundary (never before a UTF-8 continuation byte), so every string is valid UTF-8 on its own.
 */
export const characterStrings = (value: string): Array<Buffer> => {
  const bytes = Buffer.from(value, "utf8")
  if (bytes.length <= MAX_CHARACTER_STRING) return [bytes]
  const chunks: Array<Buffer> = []
  let start = 0
  while (start < bytes.length) {
    let end = Math.min(start + MAX_CHARACTER_STRING, bytes.length)
    // 10xxxxxx continues the character before it: back off to where that character starts
    while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--
    chunks.push(bytes.subarray(start, end))
    start = end
  }
  return chunks
}

const PREFIXED = /^[a-z0-9][a-z0-9_-]*:/i

/** Identity values must carry their `key:` prefix (the spec calls a bare value incorrect). */
export const isPrefixed = (value: string): boolean => PREFIXED.test(value)

/** What dns-packet takes as `data` for a record of type `T`. */
type DataOf<T> = Answer extends infer A ? A extends { type: infer U; data?: infer D } ? T extends U ? D : never : never
  : never

/** One IN record; `data` is checked against `type` here, where the union cannot follow a generic type. */
const record = <T extends Answer["type"]>(name: string, type: T, data: DataOf<T>, ttl = TTL) =>
  ({ name, type, class: "IN", ttl, data }) as Answer

export const txt = (name: string, value: string): Answer => record(name, "TXT", characterStrings(value))

/** `served`: the zone whose nameserver this is, when `zone` is a linked tld delegated to it. */
export const soa = (zone: string, serial: number, ttl: number, served = zone): Answer =>
  record(zone, "SOA", {
    mname: `ns1.${served}`,
    rname: `hostmaster.${served}`,
    serial,
    refresh: 3600,
    retry: 600,
    expire: 604800,
    minimum: NEGATIVE_TTL
  }, ttl)

export const ns = (zone: string): Answer => record(zone, "NS", `ns1.${zone}`)

export const a = (name: string, address: string): Answer => record(name, "A", address)

/** RFC 8482 §4.2: the synthesized answer to ANY when nothing better fits. */
export const hinfoRfc8482 = (name: string): Answer => record(name, "HINFO", { cpu: "RFC8482", os: "" })
