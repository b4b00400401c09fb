import type { Auth } from "@shoal/domain"
import { Config, Duration, Effect, Option } from "effect"
import { AccountsRepo } from "../Accounts/Repo.js"
import * as TtlCache from "../Cache/TtlCache.js"

/** How long a read of a key is trusted: the bound on serving a key revoked elsewhere whose notice was lost. */
const VALID_MS = 30_000
/** A key unread for this long is no longer rechecked: its next use reads it again. */
const IDLE_MS = 10 * 60_000
const CHECK_BATCH = 1_000

/**
 * key hash → principal, so authentication does not touch the database per request. Concurrent misses for one
 * key share one query. Rotation on this node invalidates at once, other nodes when its notice arrives
 * (Realtime/Revocations.ts). A read is trusted for 30 s, a safety net should a notice be lost; so that a key in
 * use does not go back to the database every 30 s (10,000 agents calling every half minute all missed), the
 * keys read in the last 10 minutes are rechecked in bulk every `KEY_CACHE_RECHECK_INTERVAL` (default 15 s; one
 * query per 1,000 keys), which drops the revoked and renews the rest.
 */
export class KeyCache extends Effect.Service<KeyCache>()("Auth/KeyCache", {
  scoped: Effect.gen(function*() {
    const repo = yield* AccountsRepo
    const every = yield* Config.duration("KEY_CACHE_RECHECK_INTERVAL").pipe(
      Config.withDefault(Duration.seconds(15))
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
      ttlMillis: (found) => Option.isSome(found) ? VALID_MS : 2_000
    })

    // unknown keys are dropped: their short expiry guards against floods, a recheck need not renew it
    const recheck = cache.recheck(CHECK_BATCH, IDLE_MS, (entries) =>
      Effect.map(
        Effect.orDie(repo.liveKeys(entries.flatMap(([hash, found]) => Option.isSome(found) ? [hash] : []))),
        (live) => new Set(entries.flatMap(([hash]) => live.has(hash) ? [] : [hash]))
      )).pipe(Effect.catchAllCause((cause) => Effect.logWarning("key cache recheck failed", cause)))
    // a round only after some key was used since the last one: an idle node (or a test clock) is not woken
    yield* cache.awaitUse.pipe(
      Effect.zipRight(Effect.sleep(every)),
      Effect.zipRight(recheck),
      Effect.forever,
      Effect.forkScoped
    )

    return {
      get: (hash: string) => cache.get(hash),
      /** the cached answer for a key, read synchronously; undefined when it would take a lookup */
      peek: (hash: string) => cache.peek(hash),
      invalidate: (hashes: ReadonlyArray<string>) =>
        Effect.forEach(hashes, (h) => cache.invalidate(h), { discard: true })
    } as const
  }),
  dependencies: [AccountsRepo.Default]
}) {}
