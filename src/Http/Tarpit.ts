import type { Server } from "node:http"
import type { Socket } from "node:net"
import type { Strikes } from "./PenaltyBox.js"

/** Reads nothing more from `tcp` (beyond the chunk already in flight): what the peer sends stays in the kernel. */
export const stopReading = (tcp: Socket) => {
  if (!tcp.destroyed) tcp.pause()
}

const ignore = () => {}

/**
 * A boxed address's new connection (src/Http/PenaltyBox.ts) never reaches the HTTP server: in `tarpit` mode it is
 * held unread (its request, its WebSocket handshake, stall on the client's side) until the box opens, at most
 * `perIp` of them per address (0: no cap) and the rest reset; in `refuse` mode it is reset at once (a client that
 * reconnects at once then loops on connect and reset). `stats` counts both.
 */
export const guard = (server: Server, strikes: Strikes, perIp: number) => {
  const held = new Map<string, number>()
  const sockets = new Set<Socket>()
  const stats = { refused: 0, tarpitted: 0 }
  const tarpit = strikes.options.mode === "tarpit"
  const emit = server.emit
  server.emit = function(this: Server, event: string | symbol, ...args: Array<any>): boolean {
    const socket = args[0] as Socket
    const address = event === "connection" ? socket.remoteAddress ?? "" : ""
    const left = address === "" ? 0 : strikes.boxedFor(address)
    if (left === 0) return emit.apply(this, [event, ...args] as unknown as Parameters<Server["emit"]>)
    const count = held.get(address) ?? 0
    if (!tarpit || (perIp > 0 && count >= perIp)) {
      stats.refused++
      socket.destroy()
      return true
    }
    stats.tarpitted++
    held.set(address, count + 1)
    sockets.add(socket)
    socket.on("error", ignore)
    stopReading(socket)
    const timer = setTimeout(() => socket.destroy(), left)
    timer.unref()
    socket.once("close", () => {
      clearTimeout(timer)
      sockets.delete(socket)
      const left = (held.get(address) ?? 1) - 1
      if (left <= 0) held.delete(address)
      else held.set(address, left)
    })
    return true
  } as Server["emit"]
  // the server closes once every connection has: held ones would make it wait out their period
  const close = server.close
  server.close = function(this: Server, callback?: (error?: Error) => void) {
    for (const socket of sockets) socket.destroy()
    return close.call(this, callback)
  } as Server["close"]
  return stats
}
