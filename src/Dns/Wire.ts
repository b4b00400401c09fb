import * as DnsPacket from "dns-packet"
import type { Answer, OptAnswer, Packet, Question } from "dns-packet"

export const Rcode = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  BADVERS: 16
} as const

/** RFC 9715 / DNS flag day 2020: no fragmentation-prone answers over UDP. */
export const MAX_UDP_PAYLOAD = 1232
export const LEGACY_UDP_PAYLOAD = 512
const MAX_TCP_MESSAGE = 65535

/** Whether the query carries EDNS, and what it asked for; "invalid" when it has several OPT records. */
export type Edns = { readonly version: number; readonly dnssecOk: boolean; readonly size: number } | null | "invalid"

export const ednsOf = (query: Packet): Edns => {
  let found: OptAnswer | null = null
  for (const record of query.additionals ?? []) {
    if (record.type !== "OPT") continue
    if (found !== null) return "invalid"
    found = record
  }
  if (found === null) return null
  return {
    version: found.ednsVersion ?? 0,
    dnssecOk: ((found.flags ?? 0) & DnsPacket.DNSSEC_OK) !== 0,
    size: found.udpPayloadSize ?? 0
  }
}

export const opcodeOf = (query: Packet): number => ((query.flags ?? 0) >> 11) & 0xf

/** The largest UDP response the client accepts (RFC 6891 §6.2.5: below 512 counts as 512). */
export const udpLimit = (query: Packet): number => {
  const edns = ednsOf(query)
  if (edns === null || edns === "invalid") return LEGACY_UDP_PAYLOAD
  return Math.min(Math.max(edns.size, LEGACY_UDP_PAYLOAD), MAX_UDP_PAYLOAD)
}

export interface Reply {
  readonly rcode: number
  readonly authoritative?: boolean
  readonly question?: Question | undefined
  readonly answers?: ReadonlyArray<Answer>
  readonly authorities?: ReadonlyArray<Answer>
  readonly additionals?: ReadonlyArray<Answer>
}

/** A response to `query`: opcode, RD and CD copied, an OPT record when the query had one. */
export const reply = (query: Packet, r: Reply): Packet => {
  const copied = (query.flags ?? 0) & (DnsPacket.RECURSION_DESIRED | DnsPacket.CHECKING_DISABLED)
  const aa = r.authoritative ? DnsPacket.AUTHORITATIVE_ANSWER : 0
  const flags = (opcodeOf(query) << 11) | copied | aa | (r.rcode & 0xf)
  const additionals = [...(r.additionals ?? [])]
  const edns = ednsOf(query)
  if (edns !== null && edns !== "invalid") {
    additionals.push({
      name: ".",
      type: "OPT",
      udpPayloadSize: MAX_UDP_PAYLOAD,
      extendedRcode: r.rcode >> 4,
      ednsVersion: 0,
      flags: edns.dnssecOk ? DnsPacket.DNSSEC_OK : 0,
      flag_do: edns.dnssecOk,
      options: []
    })
  }
  return {
    id: query.id ?? 0,
    type: "response",
    flags,
    questions: r.question === undefined ? [] : [r.question],
    answers: [...(r.answers ?? [])],
    authorities: [...(r.authorities ?? [])],
    additionals
  }
}

/** For a query whose answer did not come in time: it was validated, so its question can be echoed. */
export const servfail = (query: Packet): Packet =>
  reply(query, { rcode: Rcode.SERVFAIL, question: query.questions?.length === 1 ? query.questions[0] : undefined })

/** The same response with TC set and only the question and OPT left, so the client retries over TCP. */
export const truncate = (response: Packet): Packet => ({
  ...response,
  flags: (response.flags ?? 0) | DnsPacket.TRUNCATED_RESPONSE,
  answers: [],
  authorities: [],
  additionals: (response.additionals ?? []).filter((record) => record.type === "OPT")
})

export const HEADER = 12
const MIN_QUESTION = 5
const MIN_RECORD = 11

/**
 * The query in `message`, or null for anything not worth an answer: short, a response (QR=1), or undecodable.
 * dns-packet allocates arrays of the header's counts before reading them (≈1 ms for 4 × 65535), so counts
 * the message cannot hold are refused first.
 */
export const decode = (message: Buffer): Packet | null => {
  if (message.length < HEADER || (message[2] & 0x80) !== 0) return null
  const records = message.readUInt16BE(6) + message.readUInt16BE(8) + message.readUInt16BE(10)
  if (message.readUInt16BE(4) * MIN_QUESTION + records * MIN_RECORD > message.length - HEADER) return null
  try {
    return DnsPacket.decode(message)
  } catch {
    return null
  }
}

/**
 * Encodes `response`, truncated when it exceeds `limit`; null when even the fallback cannot be encoded.
 * Encoding runs on data from the record source, so a throw must cost one answer, not the server.
 */
export const encode = (query: Packet, response: Packet, limit: number = MAX_TCP_MESSAGE): Buffer | null => {
  try {
    // encode first: measuring beforehand would walk every name twice for the common answer that fits
    const bytes = DnsPacket.encode(response)
    return bytes.length <= limit ? bytes : DnsPacket.encode(truncate(response))
  } catch {
    try {
      return DnsPacket.encode(reply(query, { rcode: Rcode.SERVFAIL }))
    } catch {
      return null
    }
  }
}
