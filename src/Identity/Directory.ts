import { Clock, Effect, Option, Queue } from "effect"
import { ProfileChanges } from "../Profiles/Changes.js"
import { IdentityRepo, type IdentityRow } from "./Repo.js"

const HIT_TTL_MS = 60_000
// an unknown handle may be signed up any moment, and sign-ups announce nothing: forget misses sooner
const MISS_TTL_MS = 5_000
const CAPACITY = 50_000

interface Entry {
  readonly row: Option.Option<IdentityRow>
  readonly expiresAt: number
}

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
    const entries = new Map<string, Entry>()
    // bumped on every invalidation: a lookup that started before it must not store what it read
    let generation = 0

    const invalidate = (handle: string) =>
      Effect.sync(() => {
        generation++
        entries.delete(handle)
      })

    const inbox = yield* changes.subscribe
    yield* Queue.take(inbox).pipe(
      Effect.flatMap((change) => invalidate(change.handle)),
      Effect.forever,
      Effect.forkScoped
    )

    const store = (handle: string, entry: Entry) => {
      entries.delete(handle)
      // Map keeps insertion order: the first key is the oldest entry
      if (entries.size >= CAPACITY) entries.delete(entries.keys().next().value!)
      entries.set(handle, entry)
    }

    /** The user with this (lowercase) handle, if any. */
    const find = Effect.fn("Directory.find")(function*(handle: string) {
      const now = yield* Clock.currentTimeMillis
      const cached = entries.get(handle)
      if (cached !== undefined && cached.expiresAt > now) return cached.row
      const started = generation
      const row = yield* Effect.orDie(repo.findByHandle(handle))
      if (generation === started) {
        store(handle, { row, expiresAt: now + (Option.isSome(row) ? HIT_TTL_MS : MISS_TTL_MS) })
      }
      return row
    })

    return { find, invalidate } as const
  }),
  dependencies: [IdentityRepo.Default, ProfileChanges.Default]
}) {}
