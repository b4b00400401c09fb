import type { Socket } from "node:net"
import { AddressCap } from "./AddressCap.js"
import type { Strikes } from "./PenaltyBox.js"

const ignore = () => {}

/**
 * What becomes of a boxed address's new connections (src/Edge/PenaltyBox.ts), as a proxy's tarpit would: in `tarpit`
 * mode each is held unread (it arrives paused, src/Edge/ConnectionGate.ts), its request or handshake stalled and what
 * it sends left in the kernel, until the box opens and it is closed; at most `perIp` are held per address (0: no
 * cap), the rest reset. In `refuse` mode each is reset at once (a client reconnecting at once loops on connect, reset).
 */
export class Tarpit {
  private readonly held = new Set<Socket>()
  private readonly cap: AddressCap | undefined

  constructor(private readonly strikes: Strikes, perIp: number) {
    this.cap = perIp > 0 ? new AddressCap(perIp) : undefined
  }

  /** Whether `socket` is kept from the server, held or reset; false when its address is not boxed. */
  takes(socket: Socket): boolean {
    const left = this.strikes.boxedFor(socket.remoteAddress)
    if (left === 0) return false
    if (this.strikes.options.mode === "refuse") {
      socket.destroy()
      return true
    }
    // past the address's cap, reset
    if (this.cap !== undefined && !this.cap.admits(socket)) return true
    this.held.add(socket)
    socket.on("error", ignore)
    const timer = setTimeout(() => socket.destroy(), left).unref()
    socket.once("close", () => {
      clearTimeout(timer)
      this.held.delete(socket)
    })
    return true
  }

  /** Resets every held connection: the server is closing, and would otherwise wait out their periods. */
  releaseAll(): void {
    for (const socket of this.held) socket.destroy()
  }
}
