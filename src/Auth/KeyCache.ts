import { Cache, Clock, Config, Duration, Effect, Exit, Option, Schedule } from "effect"
import { type KeyHolder, KeysRepo } from "./KeysRepo.js"

/** An unknown key is remembered briefly: a flood of bad keys does not reach the database with every request. */
const UNKNOWN = Duration.seconds(2)
/** A key unused this long is no longer read again ahead of its expiry. */
const IDLE_MS = 10 * 60_000

/**
 * key hash → its holder (principal and extended limit), so authentication does not touch the database per request:
 * an Effect `Cache` (concurrent misses for one key share one lookup; a failed read is not kept). Keys in use are
 * read again in bulk before they expire, so only a key new to this node waits on the database. (Misses of
 * different keys were batched through `@effect/experimental`'s data loader: under a database outage its batch
 * fiber interrupted the waiting checks, which then answered an empty 503 instead of the contract's, so each miss
 * is one statement again.) Rotation on this node invalidates at once, other nodes when its notice arrives
 * (src/Realtime/Revocations.ts); a read is trusted for `KEY_CACHE_TTL` (30 s) should a notice be lost.
 */
export class KeyCache extends Effect.Service<KeyCache>()("Auth/KeyCache", {
  scoped: Effect.gen(function*() {
    const repo = yield* KeysRepo
    // how long a read of a key is trusted: the bound on serving a key revoked elsewhere whose notice was lost
    const valid = yield* Config.duration("KEY_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(30)))
    const capacity = 200_000
    // what the Cache's reads settled to, readable within the caller's own step: a hit through the Cache's `get` took
    // about ten fiber steps, most of what a key check cost (bench/README.md, "The one path, profiled"). Kept in step
    // with the Cache: stored when a read or the refresh stores a holder, dropped with it, trusted as long as it is
    const settled = new Map<string, { readonly holder: Option.Option<KeyHolder>; readonly until: number }>()
    const settle = (hash: string, holder: Option.Option<KeyHolder>, now: number) => {
      // a flood of unknown keys: start again rather than grow past the Cache (whose reads still answer)
      if (settled.size >= capacity) settled.clear()
      settled.set(hash, { holder, until: now + Duration.toMillis(Option.isSome(holder) ? valid : UNKNOWN) })
    }
    const cache = yield* Cache.makeWith({
      capacity,
      lookup: (hash: string) =>
        Clock.currentTimeMillis.pipe(
          Effect.flatMap((now) =>
            Effect.map(repo.holders([hash], new Date(now)), (found) => {
              const holder = Option.fromNullable(found.get(hash))
              settle(hash, holder, now)
              return holder
            })
          ),
          Effect.orDie
        ),
      // a failed read (the database down) is not kept: the next call asks again
      timeToLive: (exit) => Exit.isFailure(exit) ? Duration.zero : Option.isSome(exit.value) ? valid : UNKNOWN
    })

    // keys in use are read again before their read expires, in the background and in bulk (a thousand a
    // statement), so an agent calling every few seconds never waits on the database; a key unused for IDLE is left
    // to expire, and its next call reads it
    const every = yield* Config.duration("KEY_CACHE_REFRESH_INTERVAL").pipe(
      Config.withDefault(Duration.seconds(15))
    )
    let used = new Map<string, number>()
    const refresh = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const recent = used
      used = new Map()
      const due: Array<string> = []
      for (const [hash, at] of recent) {
        if (now - at > IDLE_MS) continue
        used.set(hash, at)
        due.push(hash)
      }
      // a thousand keys a statement; a key no longer live is dropped, and its next call is refused
      for (let i = 0; i < due.length; i += 1_000) {
        const batch = due.slice(i, i + 1_000)
        const found = yield* repo.holders(batch, new Date(now))
        for (const hash of batch) {
          const holder = found.get(hash)
          if (holder === undefined) {
            settled.delete(hash)
            yield* cache.invalidate(hash)
          } else {
            settle(hash, Option.some(holder), now)
            yield* cache.set(hash, Option.some(holder))
          }
        }
      }
      for (const [hash, entry] of settled) if (entry.until < now) settled.delete(hash)
    })
    yield* refresh.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("key cache refresh failed", cause)),
      Effect.repeat(Schedule.spaced(every)),
      Effect.delay(every),
      Effect.withClock(Clock.make()),
      Effect.forkScoped
    )

    return {
      /** the holder of a key, `now` being the caller's clock reading (the key counts as in use) */
      get: (hash: string, now: number) => {
        used.set(hash, now)
        return cache.get(hash)
      },
      /**
       * The holder of a key as already read and still trusted at `now`, without a fiber step; `undefined` when it
       * is not (then `get` reads it). The key counts as in use.
       */
      peek: (hash: string, now: number): Option.Option<KeyHolder> | undefined => {
        const entry = settled.get(hash)
        if (entry === undefined) return undefined
        if (now > entry.until) {
          settled.delete(hash)
          return undefined
        }
        used.set(hash, now)
        return entry.holder
      },
      invalidate: (hashes: ReadonlyArray<string>) =>
        Effect.forEach(hashes, (h) => {
          settled.delete(h)
          return cache.invalidate(h)
        }, { discard: true })
    } as const
  }),
  dependencies: [KeysRepo.Default]
}) {}
