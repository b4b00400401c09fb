import type { Ids } from "@shoal/domain"
import type { Socket } from "node:net"
import { WebSocket } from "ws"
import { eventFrame, type EventRow } from "./EventRow.js"
import type { BlockFrames } from "./Frames.js"

// live events held while a resuming socket replays from the database; past this, replay again from the database
const MAX_HELD = 2_000

/**
 * One authenticated socket: what it has been sent, and the backfill → cut-over → live switch. Events reach it
 * synchronously from the dispatcher; anything at or below `lastSent` is a duplicate and is dropped, which is
 * what makes replay plus live gap-free without sending anything twice.
 */
export class Connection {
  /** live events that arrived during replay; undefined once live */
  private held: Array<EventRow> | undefined = []
  private overflowed = false
  /** answered the last keep-alive ping */
  alive = true
  closed = false

  constructor(
    readonly ws: WebSocket,
    readonly tcp: Socket,
    readonly userId: Ids.UserId,
    /** the key it authenticated with: a rotation closes the sockets of the revoked key, not those of the new one */
    readonly keyHash: string,
    /** bytes queued for the client past which a live socket is closed as too slow */
    readonly maxBuffered: number,
    public lastSent: number,
    /** the console session it was opened with (a cookie instead of a key): signing out closes it */
    readonly sessionHash?: string
  ) {}

  /** Whether it was opened with one of these credentials (key hashes, or a console session's token hash). */
  openedWith(hashes: ReadonlyArray<string>): boolean {
    return hashes.includes(this.keyHash) || (this.sessionHash !== undefined && hashes.includes(this.sessionHash))
  }

  /** From the dispatcher: send now if live, hold if replaying. */
  push(row: EventRow): void {
    if (this.closed || row.cursor <= this.lastSent) return
    if (this.held !== undefined) this.hold(row)
    else if (!this.tooSlow()) this.replay(row)
  }

  /** From the dispatcher, the `i`th event of a block from memory, as `push`: its frame built only if it is sent. */
  pushFrame(frames: BlockFrames, i: number): void {
    const cursor = frames.lo + i
    if (this.closed || cursor <= this.lastSent) return
    if (this.held !== undefined) return this.hold(frames.row(i))
    if (this.tooSlow()) return
    // the frame ws.send would write, in one write rather than ws's two; nothing of ws's can be queued ahead of it
    // (ws queues only while compressing, off here, or reading a Blob). Not OPEN (closing): dropped, as ws.send does
    if (this.ws.readyState === WebSocket.OPEN) this.tcp.write(frames.frame(i))
    this.lastSent = cursor
  }

  /** Replayed rows: the caller waits for the buffer to drain between pages instead of dropping the socket. */
  replay(row: EventRow): void {
    if (this.closed || row.cursor <= this.lastSent) return
    this.ws.send(eventFrame(row))
    this.lastSent = row.cursor
  }

  /** Ends replay: sends what arrived meanwhile and goes live; false if too much arrived, so replay must go on. */
  goLive(): boolean {
    if (this.overflowed) {
      this.held = []
      this.overflowed = false
      return false
    }
    const held = this.held ?? []
    this.held = undefined
    for (const row of held) this.push(row)
    return true
  }

  sendText(text: string): void {
    if (!this.closed) this.ws.send(text)
  }

  close(code: number, reason: string): void {
    if (this.closed) return
    this.closed = true
    this.ws.close(code, reason)
  }

  terminate(): void {
    this.closed = true
    this.ws.terminate()
  }

  private hold(row: EventRow): void {
    if (this.held!.length < MAX_HELD) this.held!.push(row)
    else this.overflowed = true
  }

  /** Closes a live socket whose client does not read (4008, with the cursor to resume after). */
  private tooSlow(): boolean {
    if (this.ws.bufferedAmount <= this.maxBuffered) return false
    this.close(4008, `too slow; resume with ?after=${this.lastSent}`)
    return true
  }
}
