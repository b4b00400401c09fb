import type { Auth } from "@shoal/domain"
import { Effect, Option } from "effect"
import { AccountsRepo } from "../Accounts/Repo.js"
import * as TtlCache from "../Cache/TtlCache.js"

/**
 * key hash → principal, so authentication does not touch the database per request. Concurrent misses for one
 * key share one query. Rotation on this node invalidates at once, other nodes when its notice arrives
 * (Realtime/Revocations.ts); the TTL bounds staleness should a notice be lost.
 */
export class KeyCache extends Effect.Service<KeyCache>()("Auth/KeyCache", {
  effect: Effect.gen(function*() {
    const repo = yield* AccountsRepo
    const cache = yield* TtlCache.make({
      capacity: 200_000,
      lookup: (hash: string) =>
        repo.principalByKeyHash(hash).pipe(
          Effect.map(Option.map((row): Auth.Principal => ({
            id: row.id,
            handle: row.handle,
            userType: row.user_type,
            ownerId: row.owner_id,
            keyHash: hash
          }))),
          Effect.orDie
        ),
      ttlMillis: (found) => Option.isSome(found) ? 30_000 : 2_000
    })
    return {
      get: (hash: string) => cache.get(hash),
      invalidate: (hashes: ReadonlyArray<string>) =>
        Effect.forEach(hashes, (h) => cache.invalidate(h), { discard: true })
    } as const
  }),
  dependencies: [AccountsRepo.Default]
}) {}
