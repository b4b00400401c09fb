import { Cache, Duration, Effect, Exit } from "effect"

/**
 * effect's `Cache` for rows that writes on this node invalidate. The Cache keeps what a lookup read even if the key
 * was invalidated meanwhile (an old row for a whole TTL); here a lookup an invalidation overtook reads again, and a
 * failed lookup is not kept. A hit is answered in one fiber step (the Cache's `get` took about ten); a miss goes
 * through the Cache, which shares concurrent lookups of one key.
 */
export const make = <K, V, R>(options: {
  readonly capacity: number
  readonly timeToLive: (value: V) => Duration.DurationInput
  readonly lookup: (key: K) => Effect.Effect<V, never, R>
}) =>
  Effect.gen(function*() {
    // per key, how often it was invalidated; past `capacity` keys the counters are forgotten and `epoch` moves
    // instead, which every lookup under way then sees as an invalidation
    const generations = new Map<K, number>()
    let epoch = 0
    // the values lookups settled to, until when each is trusted: dropped with the Cache's, and all at once past
    // `capacity` keys (the Cache then still answers)
    const settled = new Map<K, { readonly value: V; readonly until: number }>()
    const lookup = (key: K): Effect.Effect<V, never, R> =>
      Effect.suspend(() => {
        const generation = generations.get(key)
        const started = epoch
        return Effect.flatMap(
          options.lookup(key),
          (value) => {
            if (generations.get(key) !== generation || epoch !== started) return lookup(key)
            return Effect.clockWith((clock) => {
              if (settled.size >= options.capacity) settled.clear()
              const ttl = Duration.toMillis(Duration.decode(options.timeToLive(value)))
              settled.set(key, { value, until: clock.unsafeCurrentTimeMillis() + ttl })
              return Effect.succeed(value)
            })
          }
        )
      })
    const cache = yield* Cache.makeWith({
      capacity: options.capacity,
      lookup,
      timeToLive: Exit.match({ onFailure: () => Duration.zero, onSuccess: options.timeToLive })
    })
    const invalidate = (key: K) =>
      Effect.suspend(() => {
        if (generations.size >= options.capacity) {
          generations.clear()
          epoch++
        }
        generations.set(key, (generations.get(key) ?? 0) + 1)
        settled.delete(key)
        return cache.invalidate(key)
      })
    const get = (key: K): Effect.Effect<V, never, R> =>
      Effect.clockWith((clock) => {
        const entry = settled.get(key)
        if (entry !== undefined && clock.unsafeCurrentTimeMillis() <= entry.until) return Effect.succeed(entry.value)
        return cache.get(key)
      })
    return { get, invalidate } as const
  })
