import type { Packet } from "dns-packet"
import * as DnsPacket from "dns-packet"
import { Option } from "effect"
import { type AnswerCache, type CachedAnswer, namesLike, patch, type PlainQuery, plainQuery } from "./AnswerCache.js"
import type { RateLimiter, Verdict } from "./RateLimit.js"
import type { RecordSource } from "./RecordSource.js"
import { type AnswerOptions, finish, isLookup, type Lookup, plan } from "./Responder.js"
import * as Wire from "./Wire.js"

export interface AnswererOptions {
  readonly zone: string
  readonly answer: AnswerOptions
  readonly source: RecordSource["Type"]
  readonly cache: AnswerCache
  readonly limiter: RateLimiter | null
}

/**
 * Answers UDP queries in the socket's 'message' callback, without a fiber: from the AnswerCache when the query is
 * plain and the handle's records unchanged, else from the records the source holds (`peek`), caching the answer.
 * Only a query whose records must be read first is left to the fiber path. The rate limiter rules on every reply,
 * and first of all: a query from a prefix out of both answers and slips is dropped undecoded.
 */
export const makeAnswerer = (options: AnswererOptions) => {
  const { cache, limiter, source } = options
  let limited = 0

  /** The bytes to send for `message` from `address`: null for nothing (dropped, undecodable), or the Lookup to run. */
  const respond = (message: Buffer, address: string): Buffer | null | Lookup => {
    if (limiter !== null && limiter.exhausted(address)) {
      limited++
      return null
    }
    const plain = plainQuery(message)
    if (plain !== null) {
      const hit = cache.get(plain.key)
      if (hit !== undefined) {
        if (source.peek(hit.handle) === hit.records) return serve(hit, plain, message, address)
        cache.delete(plain.key)
      }
    }
    const query = Wire.decode(message)
    if (query === null) return null
    const step = plan(query, options.zone, options.answer)
    if (!isLookup(step)) return step === null ? null : reply(query, step, address)
    const records = source.peek(step.handle)
    if (records === undefined) return step
    const response = finish(step, Option.fromNullable(records))
    const built = plain === null ? null : build(step.handle, records, response)
    if (built === null) return reply(query, response, address)
    cache.set(plain!.key, built)
    return serve(built, plain!, message, address)
  }

  /** The rate limiter's word on one more reply to `address`; a drop is counted. */
  const take = (address: string): Verdict => {
    const verdict = limiter === null ? "send" : limiter.take(address)
    if (verdict === "drop") limited++
    return verdict
  }

  const serve = (answer: CachedAnswer, plain: PlainQuery, message: Buffer, address: string): Buffer | null => {
    const verdict = take(address)
    if (verdict === "drop") return null
    return verdict === "send" && answer.full.length <= plain.limit
      ? patch(answer.full, answer.fullNames, message, plain.nameEnd)
      : patch(answer.truncated, answer.truncatedNames, message, plain.nameEnd)
  }

  /** The UDP bytes for `response` to `query`, through the rate limiter. */
  const reply = (query: Packet, response: Packet, address: string): Buffer | null => {
    const verdict = take(address)
    if (verdict === "drop") return null
    return verdict === "slip"
      ? Wire.encode(query, Wire.truncate(response))
      : Wire.encode(query, response, Wire.udpLimit(query))
  }

  return {
    respond,
    reply,
    /** Replies the rate limiter dropped so far (the UDP flood brake watches it). */
    get limited() {
      return limited
    }
  } as const
}

export type Answerer = ReturnType<typeof makeAnswerer>

/** The cacheable form of `response`, or null when it cannot be encoded (it then goes the general way). */
const build = (handle: string, records: CachedAnswer["records"], response: Packet): CachedAnswer | null => {
  try {
    const full = DnsPacket.encode(response)
    const truncated = DnsPacket.encode(Wire.truncate(response))
    return { handle, records, full, truncated, fullNames: namesLike(full), truncatedNames: namesLike(truncated) }
  } catch {
    return null
  }
}
