import type { IdentityRecords } from "./RecordSource.js"
import { HEADER, LEGACY_UDP_PAYLOAD, MAX_UDP_PAYLOAD } from "./Wire.js"

/**
 * The encoded UDP answers to a handle's plainest queries (QR=0, opcode 0, one question, at most an empty version-0
 * OPT: what dnsperf and most stub resolvers send). Their answer depends only on the name (case aside), type, class
 * and the OPT's presence and DO bit; id, RD, CD and the name's case are `patch`ed in, so a hit decodes nothing.
 */
export interface CachedAnswer {
  readonly handle: string
  /** What the record source gave when the answer was built (null: no such handle); a hit must still see it. */
  readonly records: IdentityRecords | null
  readonly full: Buffer
  /** The same reply with TC=1 and only the question and OPT: over the client's size, or slipped by the limiter. */
  readonly truncated: Buffer
  /** Where the question's name stands in `full` (the question and each record owned by the name). */
  readonly fullNames: ReadonlyArray<number>
  readonly truncatedNames: ReadonlyArray<number>
}

const OPT = 41

/**
 * The query's cache key when it has the plain shape, else null (it goes the general way, which answers anything
 * else as before). Labels must be printable ASCII without dots, as the responder requires to echo a name. Also
 * where the question's name ends (it starts at 12) and `limit`, the UDP size the client accepts.
 */
export const plainQuery = (message: Buffer) => {
  const length = message.length
  // QR=0 and opcode 0; QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 0 or 1
  if (length < HEADER + 5 || (message[2]! & 0xf8) !== 0) return null
  if (message[4] !== 0 || message[5] !== 1 || message[6] !== 0 || message[7] !== 0) return null
  if (message[8] !== 0 || message[9] !== 0 || message[10] !== 0 || message[11]! > 1) return null
  let at = HEADER
  for (let label = message[at]!; label !== 0; label = message[at]!) {
    if (label > 63 || at + label + 1 >= length) return null
    for (let i = at + 1; i <= at + label; i++) {
      const c = message[i]!
      if (c < 0x21 || c > 0x7e || c === 0x2e) return null
    }
    at += label + 1
  }
  const nameEnd = at + 1
  if (nameEnd === HEADER + 1 || nameEnd - HEADER > 255) return null
  const question = nameEnd + 4
  let edns = "n"
  let limit = LEGACY_UDP_PAYLOAD
  if (message[11] === 0) {
    if (length !== question) return null
  } else {
    // root name, type OPT, version 0, no options
    if (length !== question + 11 || message[question] !== 0 || message.readUInt16BE(question + 1) !== OPT) return null
    if (message[question + 6] !== 0 || message[question + 9] !== 0 || message[question + 10] !== 0) return null
    limit = Math.min(Math.max(message.readUInt16BE(question + 3), LEGACY_UDP_PAYLOAD), MAX_UDP_PAYLOAD)
    edns = (message[question + 7]! & 0x80) !== 0 ? "d" : "e"
  }
  // names compare case-insensitively: the key is lowercase, the case asked for is patched into the reply
  const key = message.toString("latin1", HEADER, nameEnd).toLowerCase() +
    message.toString("latin1", nameEnd, question) + edns
  return { key, nameEnd, limit }
}

export type PlainQuery = NonNullable<ReturnType<typeof plainQuery>>

/** Offsets of the names in `reply` (question and records) spelled exactly as its question's name. */
export const namesLike = (reply: Buffer): Array<number> => {
  const nameEnd = skipName(reply, HEADER)
  const name = reply.subarray(HEADER, nameEnd)
  const offsets = [HEADER]
  const records = reply.readUInt16BE(6) + reply.readUInt16BE(8) + reply.readUInt16BE(10)
  let at = nameEnd + 4
  for (let i = 0; i < records; i++) {
    const end = skipName(reply, at)
    if (end - at === name.length && reply.subarray(at, end).equals(name)) offsets.push(at)
    at = end + 10 + reply.readUInt16BE(end + 8)
  }
  return offsets
}

const skipName = (buffer: Buffer, at: number): number => {
  for (;;) {
    const label = buffer[at]!
    if (label === 0) return at + 1
    if (label >= 0xc0) return at + 2
    at += label + 1
  }
}

/** A copy of `reply` (a cached answer) for `message`: its id, its RD and CD bits, its name's case. */
export const patch = (reply: Buffer, names: ReadonlyArray<number>, message: Buffer, nameEnd: number): Buffer => {
  const out = Buffer.allocUnsafe(reply.length)
  reply.copy(out)
  out[0] = message[0]!
  out[1] = message[1]!
  out[2] = (reply[2]! & ~0x01) | (message[2]! & 0x01)
  out[3] = (reply[3]! & ~0x10) | (message[3]! & 0x10)
  for (const at of names) message.copy(out, at, HEADER, nameEnd)
  return out
}

/**
 * Encoded answers by plain-query key, dropped per handle when the record source says the handle changed; at most
 * `capacity`, the oldest tenth dropped when full.
 */
export const makeAnswerCache = ({ capacity = 10_000 }: { readonly capacity?: number } = {}) => {
  const answers = new Map<string, CachedAnswer>()
  const keysByHandle = new Map<string, Set<string>>()

  const forget = (key: string) => {
    const answer = answers.get(key)
    if (answer === undefined) return
    answers.delete(key)
    const keys = keysByHandle.get(answer.handle)
    keys?.delete(key)
    if (keys?.size === 0) keysByHandle.delete(answer.handle)
  }

  const set = (key: string, answer: CachedAnswer) => {
    forget(key)
    if (answers.size >= capacity) {
      // Map iterates in insertion order: drop the oldest tenth
      let n = Math.ceil(capacity / 10)
      for (const k of answers.keys()) {
        forget(k)
        if (--n === 0) break
      }
    }
    answers.set(key, answer)
    let keys = keysByHandle.get(answer.handle)
    if (keys === undefined) keysByHandle.set(answer.handle, keys = new Set())
    keys.add(key)
  }

  /** Drops every answer built from this handle's records. */
  const invalidate = (handle: string) => {
    const keys = keysByHandle.get(handle)
    if (keys === undefined) return
    keysByHandle.delete(handle)
    for (const key of keys) answers.delete(key)
  }

  return {
    get: (key: string): CachedAnswer | undefined => answers.get(key),
    set,
    delete: forget,
    invalidate,
    get size() {
      return answers.size
    }
  } as const
}

export type AnswerCache = ReturnType<typeof makeAnswerCache>
