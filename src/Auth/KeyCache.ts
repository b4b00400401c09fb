import * as Resolvers from "@effect/experimental/RequestResolver"
import { Cache, Clock, Config, Duration, Effect, Exit, Option, Request, RequestResolver, Schedule } from "effect"
import { type KeyHolder, KeysRepo } from "./KeysRepo.js"

/** An unknown key is remembered briefly: a flood of bad keys does not reach the database with every request. */
const UNKNOWN = Duration.seconds(2)
/** A key unused this long is no longer read again ahead of its expiry. */
const IDLE_MS = 10 * 60_000

class HolderOf extends Request.TaggedClass("HolderOf")<Option.Option<KeyHolder>, never, { readonly hash: string }> {}

/**
 * key hash → its holder (principal and extended limit), so authentication does not touch the database per request:
 * an Effect `Cache` (concurrent misses for one key share one lookup). Misses from different requests arriving
 * within `KEY_LOOKUP_WINDOW` (default 5 ms) are looked up together, at most 500 in one statement
 * (`@effect/experimental`'s data loader): after a deploy, thousands of agents reconnect at once and each key is
 * new to this node. Rotation on this node invalidates at once, other nodes when its notice arrives
 * (src/Realtime/Revocations.ts); a read is trusted for `KEY_CACHE_TTL` (30 s) should a notice be lost.
 */
export class KeyCache extends Effect.Service<KeyCache>()("Auth/KeyCache", {
  scoped: Effect.gen(function*() {
    const repo = yield* KeysRepo
    const window = yield* Config.duration("KEY_LOOKUP_WINDOW").pipe(Config.withDefault(Duration.millis(5)))
    // how long a read of a key is trusted: the bound on serving a key revoked elsewhere whose notice was lost
    const valid = yield* Config.duration("KEY_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(30)))
    const resolver = yield* Resolvers.dataLoader(
      RequestResolver.makeBatched((requests: ReadonlyArray<HolderOf>) =>
        Clock.currentTimeMillis.pipe(
          Effect.flatMap((now) => repo.holders(requests.map((r) => r.hash), new Date(now))),
          Effect.flatMap((found) =>
            Effect.forEach(
              requests,
              (r) => Request.completeEffect(r, Effect.succeed(Option.fromNullable(found.get(r.hash)))),
              { discard: true }
            )
          ),
          Effect.orDie
        )
      ),
      { window, maxBatchSize: 500 }
    ).pipe(
      // the window waits for requests arriving on sockets, in the event loop's time, not the application Clock's:
      // under a test clock a lookup must not wait for the test to step it
      Effect.withClock(Clock.make())
    )
    const cache = yield* Cache.makeWith({
      capacity: 200_000,
      lookup: (hash: string) => Effect.request(new HolderOf({ hash }), resolver),
      timeToLive: (exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? valid : UNKNOWN
    })

    // keys in use are read again before their read expires, in the background and in bulk (the data loader's
    // batches), so an agent calling every few seconds never waits on the database; a key unused for IDLE is left
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
      yield* Effect.forEach(due, (hash) => cache.refresh(hash), { concurrency: 500, discard: true })
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
      invalidate: (hashes: ReadonlyArray<string>) =>
        Effect.forEach(hashes, (h) => cache.invalidate(h), { discard: true })
    } as const
  }),
  dependencies: [KeysRepo.Default]
}) {}
