import type { Answer, Packet, Question } from "dns-packet"
import { Effect, Option } from "effect"
import * as Records from "./Records.js"
import { type IdentityRecords, RecordSource } from "./RecordSource.js"
import { ednsOf, opcodeOf, Rcode, reply, servfail } from "./Wire.js"
import { isEchoable, linkedKey, locate } from "./Zone.js"

export interface AnswerOptions {
  /** SOA serial. */
  readonly serial: number
  /** IPv4 address served for `ns1.<zone>` (and as glue with the apex NS), when known. */
  readonly nsAddress?: string | undefined
}

const KNOWN_CLASSES = new Set(["IN", "CS", "CH", "HS", "ANY"])

/** A query that needs the handle's records before it can be answered: `finish` it with them. */
export interface Lookup {
  readonly _tag: "Lookup"
  /** The record source's key: a handle, or a linked tld's `linkedKey`. */
  readonly handle: string
  readonly asked: Asked
  readonly proof: boolean
  /** A name in a tld that may be linked: refused if it is not; below it (not `_identity.`), no such name. */
  readonly linked?: { readonly below: boolean } | undefined
}

/**
 * What to send for one decoded query for `zone` (lowercase, no trailing dot), as far as it is known without the
 * record source: the reply, null to send nothing (the packet was itself a response), or the Lookup still needed.
 */
export const plan = (query: Packet, zone: string, options: AnswerOptions): Packet | null | Lookup => {
  if (query.type === "response") return null
  const questions = query.questions ?? []
  const first = questions.length === 1 ? questions[0] : undefined
  const question = first !== undefined && isEchoable(first.name) && KNOWN_CLASSES.has(first.class ?? "IN")
    ? first
    : undefined
  if (opcodeOf(query) !== 0) return reply(query, { rcode: Rcode.NOTIMP, question })
  const edns = ednsOf(query)
  if (question === undefined || edns === "invalid" || question.type === "OPT") {
    return reply(query, { rcode: Rcode.FORMERR, question })
  }
  if (edns !== null && edns.version > 0) return reply(query, { rcode: Rcode.BADVERS, question })
  return inZone(query, question, zone, options)
}

export const isLookup = (step: Packet | null | Lookup): step is Lookup =>
  step !== null && (step as Partial<Lookup>)._tag === "Lookup"

/** The reply to a Lookup, given the handle's records (none: no such handle). */
export const finish = (lookup: Lookup, records: Option.Option<IdentityRecords>): Packet =>
  Option.isNone(records)
    ? lookup.linked !== undefined
      ? reply(lookup.asked.query, { rcode: Rcode.REFUSED, question: lookup.asked.question })
      : negative(lookup.asked, Rcode.NXDOMAIN)
    : lookup.linked?.below
    ? negative(lookup.asked, Rcode.NXDOMAIN)
    : found(lookup.asked, answers(lookup, records.value))

/**
 * The authoritative answer to one decoded query for `zone` (lowercase, no trailing dot).
 * Null means send nothing: the packet was itself a response. Never fails: lookup trouble is SERVFAIL.
 */
export const answer = (
  query: Packet,
  zone: string,
  options: AnswerOptions
): Effect.Effect<Packet | null, never, RecordSource> => {
  const step = plan(query, zone, options)
  return isLookup(step) ? resolve(step) : Effect.succeed(step)
}

/** The reply to a Lookup once the source has read the records. */
export const resolve = (lookup: Lookup): Effect.Effect<Packet, never, RecordSource> =>
  Effect.flatMap(RecordSource, (source) => source.lookup(lookup.handle)).pipe(
    Effect.map((records) => finish(lookup, records)),
    Effect.catchAllCause(() => Effect.succeed(servfail(lookup.asked.query)))
  )

/** One validated question and what every reply to it needs. */
export interface Asked {
  readonly query: Packet
  readonly question: Question
  readonly zone: string
  readonly options: AnswerOptions
  /** The linked tld the name is in, whose SOA proves a negative answer instead of the zone's. */
  readonly origin?: string | undefined
}

// module-level, not per-query closures: tsx (esbuild keepNames) wraps each in __name, a tenth of a query's CPU.
// RFC 2308 §3: the SOA proving a negative answer is cached for its minimum.
const negative = (asked: Asked, rcode: number): Packet =>
  reply(asked.query, {
    rcode,
    authoritative: true,
    question: asked.question,
    authorities: [Records.soa(asked.origin ?? asked.zone, asked.options.serial, Records.NEGATIVE_TTL, asked.zone)]
  })

const found = (asked: Asked, answers: ReadonlyArray<Answer>, additionals: ReadonlyArray<Answer> = []): Packet =>
  answers.length === 0
    ? negative(asked, Rcode.NOERROR)
    : reply(asked.query, { rcode: Rcode.NOERROR, authoritative: true, question: asked.question, answers, additionals })

const inZone = (query: Packet, question: Question, zone: string, options: AnswerOptions): Packet | Lookup => {
  const place = locate(question.name, zone)
  const qclass = question.class ?? "IN"
  const refused = place._tag === "Outside" || (qclass !== "IN" && qclass !== "ANY") ||
    question.type === "AXFR" || question.type === "IXFR"
  if (refused) return reply(query, { rcode: Rcode.REFUSED, question })

  if (place._tag === "Linked") {
    return {
      _tag: "Lookup",
      handle: linkedKey(place.tld),
      asked: { query, question, zone, options, origin: place.tld },
      proof: place.part === "proof",
      linked: { below: place.part === "other" }
    }
  }
  const asked: Asked = { query, question, zone, options }
  const type = qtype(question)
  switch (place._tag) {
    case "Missing":
      return negative(asked, Rcode.NXDOMAIN)
    case "Apex": {
      if (type === "SOA" || type === "ANY") return found(asked, [Records.soa(zone, options.serial, Records.TTL)])
      const glue = options.nsAddress ? [Records.a(`ns1.${zone}`, options.nsAddress)] : []
      return type === "NS" ? found(asked, [Records.ns(zone)], glue) : found(asked, [])
    }
    case "Nameserver": {
      const served = options.nsAddress !== undefined && (type === "A" || type === "ANY")
      return found(asked, served ? [Records.a(question.name, options.nsAddress!)] : [])
    }
    case "Handle":
    case "Proof":
      return { _tag: "Lookup", handle: place.handle, asked, proof: place._tag === "Proof" }
  }
}

// dns-packet's types omit ANY and UNKNOWN_<n>, which it does decode
const qtype = (question: Question): string => question.type

const answers = (lookup: Lookup, records: IdentityRecords): ReadonlyArray<Answer> => {
  const question = lookup.asked.question
  const name = question.name
  if (question.type !== "TXT" && qtype(question) !== "ANY") return []
  if (lookup.proof) return records.proofUrl.length > 0 ? [Records.txt(name, records.proofUrl)] : []
  const values = records.txt.filter(Records.isPrefixed)
  if (question.type === "TXT") return values.map((value) => Records.txt(name, value))
  // RFC 8482: one RRset, or a synthesized HINFO, instead of everything
  return [values.length > 0 ? Records.txt(name, values[0]) : Records.hinfoRfc8482(name)]
}
