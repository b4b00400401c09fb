import { Effect } from "effect"
import type { Block } from "./EventRow.js"

/**
 * Blocks this node emitted, kept until the dispatcher passes them. Once the commit's NOTIFY names a block and it
 * starts right after the dispatcher's position, it is delivered from memory instead of being read back (a
 * 10,000-recipient fan-out saves a 10,000-row read). A block that never commits (rollback) or is not next in line
 * (another node's events, a gap) is simply read from the database as usual. A block is added here after its insert
 * and before its COMMIT, so it is known when its notice comes.
 */
export class Blocks extends Effect.Service<Blocks>()("Realtime/Blocks", {
  sync: () => {
    const byLo = new Map<number, Block & { committed?: boolean }>()
    return {
      add: (block: Block) => void byLo.set(block.lo, block),
      /** Marks a block committed; false if this node does not know it (another node emitted it). */
      committed: (lo: number): boolean => {
        const block = byLo.get(lo)
        if (block === undefined) return false
        block.committed = true
        return true
      },
      /** The committed block that starts at `cursor`, if any. */
      takeAt: (cursor: number): Block | undefined => {
        const block = byLo.get(cursor)
        if (block?.committed !== true) return undefined
        byLo.delete(cursor)
        return block
      },
      /** A committed block is still waiting, so something before it must come from the table. */
      pendingCommitted: (): boolean => {
        for (const block of byLo.values()) if (block.committed === true) return true
        return false
      },
      prune: (upTo: number) => {
        for (const [lo, block] of byLo) if (block.hi <= upTo) byLo.delete(lo)
      }
    } as const
  }
}) {}
