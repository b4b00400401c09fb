import { Effect, Option, Queue } from "effect"
import * as TtlCache from "../Cache/TtlCache.js"
import { ProfileChanges } from "../Profiles/Changes.js"
import { IdentityRepo, type IdentityRow } from "./Repo.js"

const HIT_TTL_MS = 60_000
// an unknown handle may be signed up any moment, and sign-ups announce nothing: forget misses sooner
const MISS_TTL_MS = 5_000
const CAPACITY = 50_000

/**
 * Handle → public identity, cached for the DNS responder and the public endpoints (hot, unauthenticated reads).
 * A committed profile change (ProfileChanges) drops the entry at once; the TTL bounds what other nodes' changes
 * can leave stale. Lookups run in the caller's fiber and a read that raced an invalidation is not kept, so
 * nothing stale is cached past a change. Not for use inside a transaction.
 */
export class Directory extends Effect.Service<Directory>()("Identity/Directory", {
  scoped: Effect.gen(function*() {
    const repo = yield* IdentityRepo
    const changes = yield* ProfileChanges
    const cache = yield* TtlCache.make({
      capacity: CAPACITY,
      ttlMillis: (row: Option.Option<IdentityRow>) => Option.isSome(row) ? HIT_TTL_MS : MISS_TTL_MS,
      lookup: (handle: string) => Effect.orDie(repo.findByHandle(handle))
    })

    // told synchronously as each entry is dropped, so a cache derived from this one drops with it
    const listeners = new Set<(handle: string) => void>()
    const invalidate = (handle: string) =>
      Effect.zipRight(
        cache.invalidate(handle),
        Effect.sync(() => listeners.forEach((listener) => listener(handle)))
      )

    const inbox = yield* changes.subscribe
    yield* Queue.take(inbox).pipe(
      Effect.flatMap((change) => invalidate(change.handle)),
      Effect.forever,
      Effect.forkScoped
    )

    /** The user with this (lowercase) handle, if any. */
    const find = Effect.fn("Directory.find")((handle: string) => cache.get(handle))
    /**
     * The cached entry for this (lowercase) handle, if a live one is at hand, without a lookup: the same object
     * until the entry is dropped or re-read.
     */
    const peek = (handle: string): Option.Option<IdentityRow> | undefined => cache.peek(handle)
    /** Calls `listener` with each handle whose entry is invalidated, until the returned function is called. */
    const onInvalidate = (listener: (handle: string) => void) => {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    }

    return { find, peek, invalidate, onInvalidate } as const
  }),
  dependencies: [IdentityRepo.Default]
}) {}
