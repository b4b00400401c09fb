import { Config, Effect } from "effect"
import type { Server } from "node:http"
import * as Net from "node:net"
import { AddressCap } from "./AddressCap.js"
import { PenaltyBox, type Strikes } from "./PenaltyBox.js"
import { edgeHardening } from "./Switch.js"
import { Tarpit } from "./Tarpit.js"

export interface GateOptions {
  /** open connections at most from one client address (0: no cap); also the tarpit's held connections per address */
  readonly perIp: number
  /** the penalty box, if there is one */
  readonly strikes: Strikes | undefined
  /** the listen backlog, kept as the HTTP server set it */
  readonly backlog?: number
}

/**
 * Puts a gate in front of `http`, before it listens: once it does, a `net.Server` with `pauseOnConnect` takes over
 * its bound socket (`server.listen(handle)`, where Node's documentation allows the handle to be a server), so each
 * accepted connection reaches the gate paused, nothing read. A boxed address's connection is held or reset
 * (src/Edge/Tarpit.ts), one past its address's cap is reset (src/Edge/AddressCap.ts), and the rest are handed to
 * the HTTP server as Node documents injecting a connection (`emit("connection", socket)`), then resumed.
 *
 * `close` is for the server's scope, before the HTTP server's own close: it resets the held connections, stops
 * accepting, closes idle keep-alive connections and waits until every connection accepted has closed (the HTTP
 * server's own close does not wait for connections it was handed, only for those it accepted itself).
 */
export const gate = (http: Server, options: GateOptions) => {
  const tarpit = options.strikes === undefined ? undefined : new Tarpit(options.strikes, options.perIp)
  const cap = options.perIp > 0 ? new AddressCap(options.perIp) : undefined
  let closing = false
  const front = Net.createServer({ pauseOnConnect: true }, (socket) => {
    if (closing) return void socket.destroy()
    if (tarpit?.takes(socket) === true) return
    if (cap !== undefined && !cap.admits(socket)) return
    http.emit("connection", socket)
    socket.resume()
  })
  http.once("listening", () => front.listen(http, options.backlog))
  const close = Effect.async<void>((resume) => {
    closing = true
    tarpit?.releaseAll()
    // the handle is shared: the HTTP server's close stops accepting, then the gate's tells when all have closed
    http.close()
    front.close(() => resume(Effect.void))
  })
  return { close }
}

/**
 * The gate as each server of the process builds it (src/Http/Serve.ts): `HTTP_MAX_CONNECTIONS_PER_IP` (default 1,000;
 * 0: no cap) and the process's penalty box. With `EDGE_HARDENING=false` the HTTP server accepts connections itself.
 */
export class ConnectionGate extends Effect.Service<ConnectionGate>()("Edge/ConnectionGate", {
  effect: Effect.gen(function*() {
    const on = yield* edgeHardening
    const perIp = yield* Config.integer("HTTP_MAX_CONNECTIONS_PER_IP").pipe(Config.withDefault(1_000))
    const { strikes } = yield* PenaltyBox
    return {
      /** a protocol violation from an address, for the penalty box if there is one (a 408, src/Http/HoldingServer.ts) */
      strike: strikes === undefined ? undefined : (address: string | undefined) => strikes.strike(address),
      /** the gate for `http`, or none */
      install: (http: Server, backlog?: number) => on ? gate(http, { perIp, strikes, backlog }) : undefined
    }
  }),
  dependencies: [PenaltyBox.Default]
}) {}
