import type { Auth } from "@shoal/domain"
import { Config, Duration, Effect, Option } from "effect"
import { AccountsRepo } from "../Accounts/Repo.js"
import * as TtlCache from "../Cache/TtlCache.js"

/** A cached key unread for this long leaves the cache (memory), whatever the rechecks say. */
const IDLE_MS = 10 * 60_000
const CHECK_BATCH = 1_000

/**
 * key hash → principal, so authentication does not touch the database per request. Concurrent misses for one
 * key share one query. Rotation on this node invalidates at once, other nodes when its notice arrives
 * (Realtime/Revocations.ts). Should a notice be lost, a recheck of every cached key in bulk
 * (`KEY_CACHE_RECHECK_INTERVAL`, default 30 s; one query per 1,000 keys) drops the revoked ones: that bounds the
 * staleness, not an expiry, so a key in steady use is never re-read on the request path (10,000 agents calling
 * every half minute all missed a 30 s expiry).
 */
export class KeyCache extends Effect.Service<KeyCache>()("Auth/KeyCache", {
  scoped: Effect.gen(function*() {
    const repo = yield* AccountsRepo
    const every = yield* Config.duration("KEY_CACHE_RECHECK_INTERVAL").pipe(
      Config.withDefault(Duration.seconds(30))
    )
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
      ttlMillis: (found) => Option.isSome(found) ? IDLE_MS : 2_000
    })

    // unknown keys are dropped too: their short expiry guards against floods, a recheck need not extend it
    const recheck = cache.recheck(CHECK_BATCH, (entries) =>
      Effect.map(
        Effect.orDie(repo.liveKeys(entries.flatMap(([hash, found]) => Option.isSome(found) ? [hash] : []))),
        (live) => new Set(entries.flatMap(([hash]) => live.has(hash) ? [] : [hash]))
      )).pipe(Effect.catchAllCause((cause) => Effect.logWarning("key cache recheck failed", cause)))
    yield* recheck.pipe(Effect.delay(every), Effect.forever, Effect.forkScoped)

    return {
      get: (hash: string) => cache.get(hash),
      invalidate: (hashes: ReadonlyArray<string>) =>
        Effect.forEach(hashes, (h) => cache.invalidate(h), { discard: true })
    } as const
  }),
  dependencies: [AccountsRepo.Default]
}) {}
