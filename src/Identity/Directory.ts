import { Duration, Effect, Option, Queue } from "effect"
import * as Invalidating from "../Cache/Invalidating.js"
import { ProfileChanges } from "../Profiles/Changes.js"
import { Supervisor } from "../Supervisor.js"
import { IdentityRepo, type IdentityRow } from "./Repo.js"

export const HIT_TTL = Duration.minutes(1)
// an unknown handle may be signed up any moment, and sign-ups announce nothing: forget misses sooner
export const MISS_TTL = Duration.seconds(5)
export const CAPACITY = 50_000

/**
 * Handle → public identity, cached for the DNS responder and the public endpoints (hot, unauthenticated reads).
 * A committed profile change (ProfileChanges) drops the entry at once; the TTL bounds what other nodes' changes
 * can leave stale. A read that raced an invalidation is not kept (src/Cache/Invalidating.ts), so nothing stale is
 * cached past a change. Not for use inside a transaction.
 */
export class Directory extends Effect.Service<Directory>()("Identity/Directory", {
  scoped: Effect.gen(function*() {
    const repo = yield* IdentityRepo
    const changes = yield* ProfileChanges
    const supervisor = yield* Supervisor
    const cache = yield* Invalidating.make({
      capacity: CAPACITY,
      timeToLive: (row: Option.Option<IdentityRow>) => Option.isSome(row) ? HIT_TTL : MISS_TTL,
      lookup: (handle: string) => Effect.orDie(repo.findByHandle(handle))
    })

    // told synchronously as each entry is dropped, so a cache derived from this one drops with it
    const listeners = new Set<(handle: string) => void>()

    const inbox = yield* changes.subscribe
    // a listener's defect restarts the loop, which takes the changes queued meanwhile
    yield* Effect.forkScoped(supervisor.forever(
      "directory",
      "invalidations",
      Effect.flatMap(Queue.take(inbox), ({ handle }) =>
        Effect.zipRight(
          cache.invalidate(handle),
          Effect.sync(() => listeners.forEach((listener) => listener(handle)))
        ))
    ))

    /** The user with this (lowercase) handle, if any. */
    const find = Effect.fn("Directory.find")((handle: string) => cache.get(handle))
    /** Calls `listener` with each handle whose entry is invalidated, until the returned function is called. */
    const onInvalidate = (listener: (handle: string) => void) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    }

    return { find, onInvalidate } as const
  }),
  dependencies: [IdentityRepo.Default]
}) {}
