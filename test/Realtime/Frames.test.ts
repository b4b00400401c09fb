import { describe, expect, it } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import * as Ws from "ws"
import { type Block, eventFrame } from "../../src/Realtime/EventRow.js"
import { blockFrames } from "../../src/Realtime/Frames.js"

// what ws.send(eventFrame(row)) writes on a server socket: its own header, then the text
const wsWrites = (text: string) =>
  Buffer.concat(
    (Ws as unknown as { Sender: { frame: (data: Buffer, options: object) => Array<Buffer> } }).Sender.frame(
      Buffer.from(text, "utf8"),
      { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false }
    )
  )

const ids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`)

describe("block frames", () => {
  it("are byte for byte what ws writes for each event's frame, and rows as the dispatcher had them", () => {
    const blocks: Array<Block> = [
      // one payload for all (a fan-out); cursors crossing a power of ten
      {
        lo: 99_998,
        hi: 100_002,
        salt: "0123456789abcdef",
        createdAt: "2026-11-24T09:00:00.000Z",
        recipients: ids(5) as Array<Ids.UserId>,
        types: "bench.fanout",
        datas: `{"at":1}`
      },
      // one payload each, with multi-byte text, and frames of every header length (< 126, < 65536, larger)
      {
        lo: 7,
        hi: 10,
        salt: "fedcba9876543210",
        createdAt: "2026-11-24T09:00:00.123Z",
        recipients: ids(4) as Array<Ids.UserId>,
        types: ["a", "post.created", "x.y\"z", "big"],
        datas: [`1`, `{"text":"héllo 🐟 wörld"}`, `{"s":"${"é".repeat(40_000)}"}`, `{"s":"${"x".repeat(70_000)}"}`]
      }
    ]
    for (const block of blocks) {
      const frames = blockFrames(block)
      block.recipients.forEach((recipientId, i) => {
        const row = frames.row(i)
        expect(row).toEqual({
          cursor: block.lo + i,
          id: `evt_${(block.lo + i).toString(16).padStart(16, "0")}${block.salt}`,
          recipientId,
          type: typeof block.types === "string" ? block.types : block.types[i],
          createdAt: block.createdAt,
          data: typeof block.datas === "string" ? block.datas : block.datas[i]
        })
        expect(frames.frame(i).equals(wsWrites(eventFrame(row)))).toBe(true)
      })
    }
  })
})
