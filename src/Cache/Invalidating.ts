import { Cache, Duration, Effect, Exit } from "effect"

/**
 * effect's `Cache` for rows that writes on this node invalidate. The Cache stores what a lookup read when the lookup
 * ends, even if the key was invalidated meanwhile: the old row would then be served for a whole TTL after a change.
 * Here a lookup that an invalidation overtook reads again. A failed lookup (a defect) is not kept.
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
    const lookup = (key: K): Effect.Effect<V, never, R> =>
      Effect.suspend(() => {
        const generation = generations.get(key)
        const started = epoch
        return Effect.flatMap(
          options.lookup(key),
          (value) => generations.get(key) === generation && epoch === started ? Effect.succeed(value) : lookup(key)
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
        return cache.invalidate(key)
      })
    return { get: (key: K) => cache.get(key), invalidate } as const
  })
