import * as DnsPacket from "dns-packet"
import type { Answer, DecodedPacket, Packet, RecordType } from "dns-packet"
import { Effect } from "effect"
import * as Dgram from "node:dgram"
import * as Net from "node:net"

export interface QueryOptions {
  readonly id?: number
  /** Advertised EDNS UDP payload size; no OPT record when absent. */
  readonly edns?: number
  readonly flags?: number
}

export const query = (name: string, type: string, options: QueryOptions = {}): Packet => ({
  type: "query",
  id: options.id ?? Math.floor(Math.random() * 65536),
  flags: options.flags ?? DnsPacket.RECURSION_DESIRED,
  questions: [{ name, type: type as RecordType, class: "IN" }],
  additionals: options.edns === undefined ? [] : [{
    name: ".",
    type: "OPT",
    udpPayloadSize: options.edns,
    extendedRcode: 0,
    ednsVersion: 0,
    flags: 0,
    flag_do: false,
    options: []
  }]
})

const bytesOf = (message: Packet | Buffer) => Buffer.isBuffer(message) ? message : DnsPacket.encode(message)

/** One UDP exchange; null when nothing came back in time (timers are real: the server runs on real sockets). */
export const udp = (port: number, message: Packet | Buffer, timeoutMs = 1000) =>
  Effect.async<DecodedPacket | null>((resume) => {
    const socket = Dgram.createSocket("udp4")
    const timer = setTimeout(() => done(null), timeoutMs)
    const done = (packet: DecodedPacket | null) => {
      clearTimeout(timer)
      socket.close()
      resume(Effect.succeed(packet))
    }
    socket.on("message", (reply) => done(DnsPacket.decode(reply)))
    socket.send(bytesOf(message), port, "127.0.0.1")
    return Effect.sync(() => {
      clearTimeout(timer)
      socket.close()
    })
  })

/** Sends all messages on one TCP connection, pipelined, and collects as many framed replies as `expect`. */
export const tcp = (
  port: number,
  messages: ReadonlyArray<Packet | Buffer>,
  expect = messages.length,
  timeoutMs = 2000
) =>
  Effect.async<ReadonlyArray<DecodedPacket>, Error>((resume) => {
    const replies: Array<DecodedPacket> = []
    let pending: Buffer = Buffer.alloc(0)
    const socket = Net.connect(port, "127.0.0.1")
    const timer = setTimeout(() => finish(new Error(`got ${replies.length} of ${expect} TCP replies`)), timeoutMs)
    const finish = (error?: Error) => {
      clearTimeout(timer)
      socket.destroy()
      resume(error ? Effect.fail(error) : Effect.succeed(replies))
    }
    socket.on("error", finish)
    socket.on("connect", () => {
      socket.write(Buffer.concat(messages.map((m) => {
        const body = bytesOf(m)
        const frame = Buffer.alloc(body.length + 2)
        frame.writeUInt16BE(body.length, 0)
        body.copy(frame, 2)
        return frame
      })))
    })
    socket.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        const length = pending.readUInt16BE(0)
        replies.push(DnsPacket.decode(pending.subarray(2, length + 2)))
        pending = pending.subarray(length + 2)
      }
      if (replies.length >= expect) finish()
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      socket.destroy()
    })
  })

/** dns-packet decodes the rcode but its types leave it out. */
export const rcode = (packet: DecodedPacket): string => (packet as unknown as { rcode: string }).rcode

/** A TXT record's character-strings, as text. */
export const strings = (answer: Answer): ReadonlyArray<string> =>
  answer.type === "TXT" ? (Array.isArray(answer.data) ? answer.data : [answer.data]).map(String) : []

export const txtValues = (packet: DecodedPacket): ReadonlyArray<string> =>
  (packet.answers ?? []).filter((a) => a.type === "TXT").map((a) => strings(a).join(""))

/**
 * Sends every message from one socket (bound to `source`) to `host`, then collects whatever comes back within
 * `waitMs`. IPv6 when `source` is.
 */
export const flood = (
  port: number,
  messages: ReadonlyArray<Packet | Buffer>,
  waitMs = 300,
  source = "127.0.0.1",
  host = "127.0.0.1"
) =>
  Effect.async<ReadonlyArray<DecodedPacket>>((resume) => {
    const replies: Array<DecodedPacket> = []
    const socket = Dgram.createSocket(Net.isIPv6(source) ? "udp6" : "udp4")
    let timer: NodeJS.Timeout | undefined
    socket.on("message", (reply) => replies.push(DnsPacket.decode(reply)))
    socket.bind(0, source, () => {
      for (const message of messages) socket.send(bytesOf(message), port, host)
      timer = setTimeout(() => {
        socket.close()
        resume(Effect.succeed(replies))
      }, waitMs)
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      socket.close()
    })
  })
