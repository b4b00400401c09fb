import type { Socket } from "node:net"
import { keepOnUpgrade } from "../Http/HoldingServer.js"

/**
 * At most `perIp` open connections from one client address, as a proxy's per-source `maxconn` would: a client opening
 * thousands (slowloris, unauthenticated event sockets) is reset past it, and other addresses are served. Counted until
 * the socket closes, upgraded or not. The address is the socket's peer: behind a reverse proxy, the proxy's.
 */
export class AddressCap {
  private readonly open = new Map<string, number>()

  constructor(readonly perIp: number) {}

  /** Whether `socket` may be served: counted against its address until it closes, or reset past the cap. */
  admits(socket: Socket): boolean {
    const address = socket.remoteAddress ?? ""
    const count = (this.open.get(address) ?? 0) + 1
    if (count > this.perIp) {
      socket.destroy()
      return false
    }
    this.open.set(address, count)
    socket.once(
      "close",
      keepOnUpgrade(() => {
        const left = (this.open.get(address) ?? 1) - 1
        if (left <= 0) this.open.delete(address)
        else this.open.set(address, left)
      })
    )
    return true
  }
}
