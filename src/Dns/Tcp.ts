import type { Packet } from "dns-packet"
import { Effect } from "effect"
import * as Net from "node:net"
import type { Runner } from "./Runner.js"
import * as Wire from "./Wire.js"

export interface TcpOptions<R> {
  readonly host: string
  readonly port: number
  readonly respond: (query: Packet) => Effect.Effect<Packet | null, never, R>
  readonly runner: Runner<R>
  /** A connection with nothing to read or write for this long is closed (RFC 7766 §6.2.3). */
  readonly idleMs: number
}

/** Queries answered concurrently on one connection before we stop reading from it. */
const MAX_IN_FLIGHT = 32

/** Binds the TCP listener (RFC 7766: 2-byte length framing, several queries per connection, any order). */
export const bindTcp = <R>(options: TcpOptions<R>) =>
  Effect.acquireRelease(
    Effect.async<{ server: Net.Server; sockets: Set<Net.Socket> }, Error>((resume) => {
      const sockets = new Set<Net.Socket>()
      const server = Net.createServer((socket) => serve(options, socket, sockets))
      server.maxConnections = 1024
      const onError = (error: Error) => resume(Effect.fail(error))
      server.once("error", onError)
      server.listen(options.port, options.host, () => {
        server.off("error", onError)
        server.on("error", (error) => options.runner.run(Effect.logWarning("dns tcp server error", error), () => {}))
        resume(Effect.succeed({ server, sockets }))
      })
    }),
    ({ server, sockets }) =>
      Effect.async<void>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ server }) => (server.address() as Net.AddressInfo).port))

const serve = <R>(options: TcpOptions<R>, socket: Net.Socket, sockets: Set<Net.Socket>) => {
  sockets.add(socket)
  let pending: Buffer = Buffer.alloc(0)
  let inFlight = 0
  socket.setNoDelay(true)
  socket.setTimeout(options.idleMs, () => socket.destroy())
  socket.on("error", () => socket.destroy())
  socket.on("close", () => sockets.delete(socket))
  // a client that sends without reading must not grow our write buffer: stop reading until it catches up
  const resumeWhenIdle = () => {
    if (inFlight < MAX_IN_FLIGHT / 2 && !socket.writableNeedDrain && socket.isPaused()) socket.resume()
  }
  socket.on("drain", resumeWhenIdle)

  const answer = (query: Packet) => {
    inFlight += 1
    let settled = false
    const write = (response: Packet | null) => {
      if (settled) return
      settled = true
      inFlight -= 1
      const bytes = response === null ? null : Wire.encode(query, response)
      if (bytes !== null && !socket.destroyed) {
        const frame = Buffer.allocUnsafe(bytes.length + 2)
        frame.writeUInt16BE(bytes.length, 0)
        bytes.copy(frame, 2)
        socket.write(frame)
      }
      resumeWhenIdle()
    }
    const servfail = () => write(Wire.servfail(query))
    if (!options.runner.run(Effect.map(options.respond(query), write), servfail)) servfail()
  }

  socket.on("data", (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    while (pending.length >= 2) {
      const length = pending.readUInt16BE(0)
      if (pending.length < length + 2) break
      const query = Wire.decode(pending.subarray(2, length + 2))
      pending = pending.subarray(length + 2)
      if (query !== null) answer(query)
    }
    if (inFlight >= MAX_IN_FLIGHT || socket.writableNeedDrain) socket.pause()
  })
}
