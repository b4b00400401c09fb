import type { Packet } from "dns-packet"
import { Effect, FiberHandle, Schedule } from "effect"
import * as Dgram from "node:dgram"
import * as Net from "node:net"
import type { Answerer } from "./Answerer.js"
import { defaultFloodBrake, type FloodBrakeOptions, makeFloodCounter, makePauseSchedule } from "./FloodBrake.js"
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
  /** Stop listening for a while when dropped datagrams make a flood (see `bindUdp`); default `defaultFloodBrake`. */
  readonly floodBrake?: FloodBrakeOptions | undefined
}

/** After a flood's pause, binding the port again is tried until it works: 100 ms, doubling, at most every 5 s. */
const rebindSchedule = Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))

/**
 * Binds the UDP listener until the scope closes; resolves to the bound port.
 *
 * The flood brake: every datagram costs the event loop the API shares a callback, even one the rate limiter drops
 * undecoded (bench/README.md, hostile). Node's dgram cannot stop reading a socket, so once `drops` queries were
 * dropped within `windowMs`, the socket is closed and the port bound again after a pause (`makePauseSchedule`):
 * meanwhile the kernel refuses every datagram, other sources' too (their resolvers ask again). Lookups under way
 * answer through whichever socket is bound then; a failed rebind is logged and retried (`rebindSchedule`).
 */
export const bindUdp = (options: UdpOptions) =>
  Effect.gen(function*() {
    const { answerer, host, runner } = options
    const brake = options.floodBrake ?? defaultFloodBrake
    let current: Dgram.Socket | undefined
    let closed = false

    // the scope's end interrupts a rebind under way; one completing after the finalizer finds `closed`
    const run = yield* FiberHandle.makeRuntime<never, never, void>()
    // the Clock the pause sleeps on, so drops, pauses and resumes share one time
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    const counter = makeFloodCounter(brake, now)
    const pauseFor = makePauseSchedule(brake)
    const braking = brake.drops > 0 && brake.pauseMs > 0
    let port = options.port
    let resumedAt = Number.NEGATIVE_INFINITY

    const send = (bytes: Buffer | null, peer: Dgram.RemoteInfo) => {
      if (bytes === null || current === undefined) return
      try {
        // no callback: Node would queue a tick per datagram for it; late errors reach the 'error' listener
        current.send(bytes, peer.port, peer.address)
      } catch {
        // port 0 or a socket closing under us: nothing to tell the peer
      }
    }
    const dropped = () => {
      if (!braking || current === undefined || !counter()) return
      const pauseMs = pauseFor(now() - resumedAt)
      close(current)
      current = undefined
      run(Effect.zipRight(Effect.sleep(pauseMs), rebind), { onlyIfMissing: true })
    }
    const onMessage = (message: Buffer, peer: Dgram.RemoteInfo) => {
      const limited = answerer.limited
      const step = answerer.respond(message, peer.address)
      if (step === null) return answerer.limited !== limited ? dropped() : undefined
      if (Buffer.isBuffer(step)) return send(step, peer)
      // the records must be read first: the answer and the deadline race; whichever comes first is the only reply
      let settled = false
      const answer = (response: Packet) => {
        if (settled) return
        settled = true
        send(answerer.reply(step.asked.query, response, peer.address), peer)
      }
      runner.run(Effect.map(resolve(step), answer), () => answer(Wire.servfail(step.asked.query)))
    }
    const install = (socket: Dgram.Socket) => {
      if (closed) return close(socket)
      // an unhandled 'error' event would take the process down
      socket.on("error", (error) => runner.run(Effect.logWarning("dns udp socket error", error), () => {}))
      socket.on("message", onMessage)
      current = socket
    }
    const rebind = Effect.suspend(() => open(host, port)).pipe(
      Effect.tapError((error) => Effect.logWarning(`dns udp could not bind ${host}:${port} again; retrying`, error)),
      Effect.retry(rebindSchedule),
      // the schedule never gives up: only the scope's end stops it, by interruption
      Effect.orDie,
      Effect.map((socket) => {
        install(socket)
        resumedAt = now()
      })
    )

    yield* Effect.acquireRelease(
      Effect.map(open(host, options.port), (socket) => {
        install(socket)
        // port 0 bound an ephemeral one: a rebind takes the same
        port = socket.address().port
      }),
      () =>
        Effect.async<void>((resume) => {
          closed = true
          const socket = current
          current = undefined
          if (socket === undefined) resume(Effect.void)
          else close(socket, () => resume(Effect.void))
        })
    )
    return port
  })

/** One socket bound to `host:port`, or the bind's error (the socket closed again). */
const open = (host: string, port: number) =>
  Effect.async<Dgram.Socket, Error>((resume) => {
    const socket = Dgram.createSocket({ type: Net.isIPv6(host) ? "udp6" : "udp4", recvBufferSize: 1 << 22 })
    const onError = (error: Error) => {
      close(socket)
      resume(Effect.fail(error))
    }
    socket.once("error", onError)
    socket.bind(port, host, () => {
      socket.off("error", onError)
      resume(Effect.succeed(socket))
    })
    // interrupted while binding: the scope is closing
    return Effect.sync(() => close(socket))
  })

/** `done` once closed, or at once if it already was. */
const close = (socket: Dgram.Socket, done?: () => void) => {
  try {
    socket.close(done)
  } catch {
    done?.()
  }
}
