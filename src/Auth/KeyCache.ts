import { Cache, Clock, Config, Duration, Effect, Exit, Option, Schedule } from "effect"
import { Supervisor } from "../Supervisor.js"
import { KeysRepo } from "./KeysRepo.js"

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
    const cache = yield* Cache.makeWith({
      capacity: 200_000,
      lookup: (hash: string) =>
        Clock.currentTimeMillis.pipe(
          Effect.flatMap((now) => repo.holders([hash], new Date(now))),
          Effect.map((found) => Option.fromNullable(found.get(hash))),
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
          yield* holder === undefined ? cache.invalidate(hash) : cache.set(hash, Option.some(holder))
        }
      }
    })
    const supervisor = yield* Supervisor
    yield* refresh.pipe(
      // the database failing (SqlError): tried again at the next interval; a defect restarts the loop
      Effect.catchAll((e) => Effect.logWarning("key cache refresh failed", e)),
      Effect.repeat(Schedule.spaced(every)),
      Effect.delay(every),
      (loop) => supervisor.supervise("key-cache", "refresh", loop),
      Effect.withClock(Clock.make()),
      Effect.forkScoped
    )

    return {
      /** the holder of a key, `now` being the caller's clock reading (the key counts as in use) */
      get: (hash: string, now: number) => {
        used.set(hash, now)
        return cache.get(hash)
      },
      invalidate: (hashes: ReadonlyArray<string>) =>
        Effect.forEach(hashes, (h) => cache.invalidate(h), { discard: true })
    } as const
  }),
  dependencies: [KeysRepo.Default]
}) {}
