import * as Resolvers from "@effect/experimental/RequestResolver"
import { Cache, Clock, Config, Duration, Effect, Exit, Option, Request, RequestResolver } from "effect"
import { type KeyHolder, KeysRepo } from "./KeysRepo.js"

/** An unknown key is remembered briefly: a flood of bad keys does not reach the database with every request. */
const UNKNOWN = Duration.seconds(2)

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

    return {
      get: (hash: string) => cache.get(hash),
      invalidate: (hashes: ReadonlyArray<string>) =>
        Effect.forEach(hashes, (h) => cache.invalidate(h), { discard: true })
    } as const
  }),
  dependencies: [KeysRepo.Default]
}) {}
