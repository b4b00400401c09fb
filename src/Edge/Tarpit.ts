import type { Socket } from "node:net"
import type { Strikes } from "./PenaltyBox.js"

const ignore = () => {}

/**
 * What becomes of a boxed address's new connections (src/Edge/PenaltyBox.ts), as a proxy's tarpit would: in
 * `tarpit` mode each is held, never read (it arrives paused, src/Edge/ConnectionGate.ts), so its request or WebSocket
 * handshake stalls on the client's side and what it sends stays in the kernel, until the box opens and it is
 * closed; at most `perIp` are held per address (0: no cap), the rest reset. In `refuse` mode each is reset at once
 * (a client that reconnects at once then loops on connect and reset).
 */
export class Tarpit {
  private readonly heldPer = new Map<string, number>()
  private readonly held = new Set<Socket>()

  constructor(private readonly strikes: Strikes, private readonly perIp: number) {}

  /** Whether `socket` is kept from the server, held or reset; false when its address is not boxed. */
  takes(socket: Socket): boolean {
    const address = socket.remoteAddress ?? ""
    const left = address === "" ? 0 : this.strikes.boxedFor(address)
    if (left === 0) return false
    const count = this.heldPer.get(address) ?? 0
    if (this.strikes.options.mode === "refuse" || (this.perIp > 0 && count >= this.perIp)) {
      socket.destroy()
      return true
    }
    this.heldPer.set(address, count + 1)
    this.held.add(socket)
    socket.on("error", ignore)
    const timer = setTimeout(() => socket.destroy(), left)
    timer.unref()
    socket.once("close", () => {
      clearTimeout(timer)
      this.held.delete(socket)
      const rest = (this.heldPer.get(address) ?? 1) - 1
      if (rest <= 0) this.heldPer.delete(address)
      else this.heldPer.set(address, rest)
    })
    return true
  }

  /** Resets every held connection: the server is closing, and would otherwise wait out their periods. */
  releaseAll(): void {
    for (const socket of this.held) socket.destroy()
  }
}
