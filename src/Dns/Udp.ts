import type { Packet } from "dns-packet"
import { Effect } from "effect"
import * as Dgram from "node:dgram"
import * as Net from "node:net"
import type { RateLimiter } from "./RateLimit.js"
import type { Runner } from "./Runner.js"
import * as Wire from "./Wire.js"

export interface UdpOptions<R> {
  readonly host: string
  readonly port: number
  readonly respond: (query: Packet) => Effect.Effect<Packet | null, never, R>
  readonly runner: Runner<R>
  readonly limiter: RateLimiter | null
}

/** Binds the UDP listener; the socket closes with the scope. Resolves to the bound port. */
export const bindUdp = <R>(options: UdpOptions<R>) =>
  Effect.acquireRelease(
    Effect.async<Dgram.Socket, Error>((resume) => {
      const socket = Dgram.createSocket({ type: Net.isIPv6(options.host) ? "udp6" : "udp4", recvBufferSize: 1 << 22 })
      const onError = (error: Error) => {
        socket.close()
        resume(Effect.fail(error))
      }
      socket.once("error", onError)
      socket.bind(options.port, options.host, () => {
        socket.off("error", onError)
        // an unhandled 'error' event would take the process down
        socket.on("error", (error) => options.runner.run(Effect.logWarning("dns udp socket error", error), ignore))
        resume(Effect.succeed(socket))
      })
    }),
    (socket) =>
      Effect.async<void>((resume) => {
        try {
          socket.close(() => resume(Effect.void))
        } catch {
          resume(Effect.void)
        }
      })
  ).pipe(
    Effect.tap((socket) =>
      Effect.sync(() => socket.on("message", (message, peer) => onMessage(options, socket, message, peer)))
    ),
    Effect.map((socket) => socket.address().port)
  )

const onMessage = <R>(options: UdpOptions<R>, socket: Dgram.Socket, message: Buffer, peer: Dgram.RemoteInfo) => {
  const query = Wire.decode(message)
  if (query === null) return
  // the answer and the deadline race; whichever comes first is the only reply
  let settled = false
  options.runner.run(
    Effect.map(options.respond(query), (response) => {
      if (settled || response === null) return
      settled = true
      send(options, socket, query, response, peer)
    }),
    () => {
      if (settled) return
      settled = true
      send(options, socket, query, Wire.servfail(query), peer)
    }
  )
}

const send = <R>(
  options: UdpOptions<R>,
  socket: Dgram.Socket,
  query: Packet,
  response: Packet,
  peer: Dgram.RemoteInfo
) => {
  const verdict = options.limiter === null ? "send" : options.limiter.take(peer.address)
  if (verdict === "drop") return
  const bytes = verdict === "slip"
    ? Wire.encode(query, Wire.truncate(response))
    : Wire.encode(query, response, Wire.udpLimit(query))
  if (bytes === null) return
  try {
    // no callback: Node would queue a tick per datagram for it; late errors reach the 'error' listener
    socket.send(bytes, peer.port, peer.address)
  } catch {
    // port 0 or a socket closing under us: nothing to tell the peer
  }
}

const ignore = () => {}
