import { Effect } from "effect"
import * as Dgram from "node:dgram"
import * as Net from "node:net"
import type { Answerer } from "./Answerer.js"
import { defaultFloodBrake, type FloodBrakeOptions, makeFloodBrake } from "./FloodBrake.js"
import type { RecordSource } from "./RecordSource.js"
import { resolve } from "./Responder.js"
import type { Runner } from "./Runner.js"
import * as Wire from "./Wire.js"

export interface UdpOptions {
  readonly host: string
  readonly port: number
  /** Answers in the 'message' callback all it can; what needs a lookup runs on `runner`. */
  readonly answerer: Answerer
  readonly runner: Runner<RecordSource>
  /** Stop reading for a while when dropped datagrams make a flood (FloodBrake.ts); default `defaultFloodBrake`. */
  readonly floodBrake?: FloodBrakeOptions | undefined
}

/** Binds the UDP listener; the socket closes with the scope. Resolves to the bound port. */
export const bindUdp = (options: UdpOptions) =>
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
    // the brake's pause timer is cleared before the socket closes (finalizers run in reverse)
    Effect.tap((socket) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const brake = makeFloodBrake(socket, options.floodBrake ?? defaultFloodBrake)
          socket.on("message", (message, peer) => onMessage(options, socket, message, peer, brake.dropped))
          return brake
        }),
        (brake) => Effect.sync(brake.close)
      )
    ),
    Effect.map((socket) => socket.address().port)
  )

const onMessage = (
  options: UdpOptions,
  socket: Dgram.Socket,
  message: Buffer,
  peer: Dgram.RemoteInfo,
  dropped: () => void
) => {
  const { answerer } = options
  const limited = answerer.limited
  const step = answerer.respond(message, peer.address)
  if (step === null) return answerer.limited !== limited ? dropped() : undefined
  if (Buffer.isBuffer(step)) return send(socket, step, peer)
  // the records must be read first: the answer and the deadline race; whichever comes first is the only reply
  let settled = false
  options.runner.run(
    Effect.map(resolve(step.lookup), (response) => {
      if (settled) return
      settled = true
      send(socket, answerer.reply(step.query, response, peer.address), peer)
    }),
    () => {
      if (settled) return
      settled = true
      send(socket, answerer.reply(step.query, Wire.servfail(step.query), peer.address), peer)
    }
  )
}

const send = (socket: Dgram.Socket, bytes: Buffer | null, peer: Dgram.RemoteInfo) => {
  if (bytes === null) return
  try {
    // no callback: Node would queue a tick per datagram for it; late errors reach the 'error' listener
    socket.send(bytes, peer.port, peer.address)
  } catch {
    // port 0 or a socket closing under us: nothing to tell the peer
  }
}

const ignore = () => {}
