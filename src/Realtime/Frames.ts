import { type Block, cursorHex, eventId, type EventRow, quotedType } from "./EventRow.js"

// `eventFrame`'s text around the two per-event parts, the cursor and the id's hex cursor; what follows the hex
// cursor (the salt, type, time and data) is the block's tail, the same bytes for every event of a one-payload block
const HEAD = Buffer.from(`{"type":"event","cursor":`, "latin1")
const MID = Buffer.from(`,"event":{"id":"evt_`, "latin1")
/** FIN + text opcode; a server's frames are not masked */
const FIN_TEXT = 0x81

/**
 * A block's events by index: as rows, and as complete WebSocket frames (header and payload), byte for byte what
 * `ws.send(eventFrame(row))` writes, built from the parts they share: a 10,000-recipient fan-out encodes its tail
 * once and copies it (bench/README.md, fanout). No row object is made unless a socket holds the event back.
 */
export const blockFrames = (b: Block) => {
  const shared = typeof b.types === "string" && typeof b.datas === "string"
  const typeOf = (i: number) => typeof b.types === "string" ? b.types : b.types[i]!
  const dataOf = (i: number) => typeof b.datas === "string" ? b.datas : b.datas[i]!
  const tailOf = (i: number) =>
    Buffer.from(`${b.salt}","type":${quotedType(typeOf(i))},"created_at":"${b.createdAt}","data":${dataOf(i)}}}`)
  let sharedTail: Buffer | undefined
  return {
    lo: b.lo,
    row: (i: number): EventRow => ({
      cursor: b.lo + i,
      id: eventId(b.lo + i, b.salt),
      recipientId: b.recipients[i]!,
      type: typeOf(i),
      createdAt: b.createdAt,
      data: dataOf(i)
    }),
    frame: (i: number): Buffer => {
      const tail = shared ? (sharedTail ??= tailOf(0)) : tailOf(i)
      const cursor = b.lo + i
      const decimal = String(cursor)
      const length = HEAD.length + decimal.length + MID.length + 16 + tail.length
      const header = length < 126 ? 2 : length < 65536 ? 4 : 10
      const out = Buffer.allocUnsafe(header + length)
      out[0] = FIN_TEXT
      if (header === 2) out[1] = length
      else if (header === 4) {
        out[1] = 126
        out.writeUInt16BE(length, 2)
      } else {
        out[1] = 127
        out.writeBigUInt64BE(BigInt(length), 2)
      }
      let at = header + HEAD.copy(out, header)
      at += out.write(decimal, at, "latin1")
      at += MID.copy(out, at)
      at += out.write(cursorHex(cursor), at, "latin1")
      tail.copy(out, at)
      return out
    }
  }
}

export type BlockFrames = ReturnType<typeof blockFrames>
