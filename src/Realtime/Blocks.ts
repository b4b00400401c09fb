import { Effect } from "effect"
import type { Block } from "./EventRow.js"

/**
 * Blocks this node emitted, kept until the dispatcher passes them: once the commit's NOTIFY names a block next in
 * line, it is delivered from memory instead of being read back (a 10,000-recipient fan-out saves a 10,000-row read).
 * Anything else (a rollback, another node's events, a gap) is read from the database as usual.
 *
 * A block sent with its COMMIT (every emit on a server: src/Database/CommitScript.ts) arrives once the commit has
 * answered, often after its notice: the notice's salt marks a block still `sending` as this node's, taken as
 * committed when it arrives (`onArrival` wakes the dispatcher). A commit that never answers leaves it `abandoned`:
 * read the table (`takeLost`).
 */
export class Blocks extends Effect.Service<Blocks>()("Realtime/Blocks", {
  sync: () => {
    const byLo = new Map<number, Block & { committed?: boolean }>()
    // salts of blocks sent with a COMMIT whose answer has not come yet; true once their notice came first
    const sending = new Map<string, boolean>()
    let lost = false
    let arrival: () => void = () => {}
    return {
      add: (block: Block) => {
        const noticed = sending.get(block.salt) === true
        sending.delete(block.salt)
        byLo.set(block.lo, noticed ? { ...block, committed: true } : block)
        if (noticed) arrival()
      },
      /** The block with this salt is being committed here; `add` or `abandoned` follows. */
      sending: (salt: string) => void sending.set(salt, false),
      /** The block's commit gave no answer: committed or not, it must be read from the table. */
      abandoned: (salt: string) => {
        if (sending.get(salt) === true) {
          lost = true
          arrival()
        }
        sending.delete(salt)
      },
      /**
       * Marks a block committed; false if this node does not know it (another node emitted it). A block of this
       * node's still being committed (`salt` among those `sending`) counts as known: it arrives once its commit
       * has answered.
       */
      committed: (lo: number, salt?: string): boolean => {
        const block = byLo.get(lo)
        if (block !== undefined) {
          block.committed = true
          return true
        }
        if (salt !== undefined && sending.has(salt)) {
          sending.set(salt, true)
          return true
        }
        return false
      },
      /** The committed block that starts at `cursor`, if any. */
      takeAt: (cursor: number): Block | undefined => {
        const block = byLo.get(cursor)
        if (block?.committed !== true) return undefined
        byLo.delete(cursor)
        return block
      },
      /** A committed block is still waiting, so something before it must come from the table. */
      pendingCommitted: (): boolean => Array.from(byLo.values()).some((block) => block.committed === true),
      /** A block whose notice came is still to arrive (a gap before a held block may be it: wait for it). */
      arriving: (): boolean => Array.from(sending.values()).includes(true),
      /** True once after a block whose notice came was abandoned: the table must be read. */
      takeLost: (): boolean => {
        const was = lost
        lost = false
        return was
      },
      /** `f` when a block whose notice came first arrives (the dispatcher's wake-up). */
      onArrival: (f: () => void) => void (arrival = f),
      prune: (upTo: number) => {
        for (const [lo, block] of byLo) if (block.hi <= upTo) byLo.delete(lo)
      }
    } as const
  }
}) {}
