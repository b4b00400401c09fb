import type { Ids } from "@shoal/domain"
import { Effect, FiberRef } from "effect"

/** The users whose Gems the current request moved (filled by the ledger, read after the commit). */
export const currentTouched = FiberRef.unsafeMake<Set<Ids.UserId> | undefined>(undefined)

/**
 * In-process notice that users' Gems moved, for the `/me` cache (`svc_gems`, `gems_escrow`): `tracked` runs a
 * request and, once it has committed, marks every user the ledger touched in it; a read takes the mark and reloads.
 * Other nodes' caches expire on their own short TTL.
 */
export class BalanceChanges extends Effect.Service<BalanceChanges>()("Wallet/BalanceChanges", {
  sync: () => {
    const dirty = new Set<Ids.UserId>()
    const tracked = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        const touched = new Set<Ids.UserId>()
        return Effect.locally(effect, currentTouched, touched).pipe(
          Effect.ensuring(Effect.sync(() => touched.forEach((id) => dirty.add(id))))
        )
      })
    /** True once after a change of the user's Gems. */
    const take = (id: Ids.UserId) => dirty.delete(id)
    return { tracked, take } as const
  }
}) {}
