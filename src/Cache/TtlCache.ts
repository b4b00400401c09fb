import { Deferred, Effect, Exit } from "effect"

interface Entry<V> {
  readonly value: V
  readonly expires: number
}

/**
 * A small TTL cache for hot read paths. A hit is a Map lookup and a clock read (Effect's `Cache` costs several
 * times that per call, which showed up in the auth benchmark); concurrent misses for one key share one lookup.
 * The lookup runs in the caller's fiber, so a miss inside a transaction stays inside it.
 */
export const make = <K, V, E, R>(options: {
  readonly capacity: number
  readonly ttlMillis: (value: V) => number
  readonly lookup: (key: K) => Effect.Effect<V, E, R>
}) =>
  Effect.map(Effect.clock, (clock) => {
    const entries = new Map<K, Entry<V>>()
    const inflight = new Map<K, Deferred.Deferred<V, E>>()
    // bumped by invalidate: a lookup that began before the invalidation must not store what it read
    const generations = new Map<K, number>()

    const store = (key: K, value: V) => {
      if (entries.size >= options.capacity) {
        // Map iterates in insertion order: drop the oldest tenth
        let n = Math.ceil(options.capacity / 10)
        for (const k of entries.keys()) {
          entries.delete(k)
          if (--n === 0) break
        }
      }
      entries.set(key, { value, expires: clock.unsafeCurrentTimeMillis() + options.ttlMillis(value) })
    }

    const miss = (key: K): Effect.Effect<V, E, R> => {
      const pending = inflight.get(key)
      if (pending !== undefined) return Deferred.await(pending)
      const deferred = Deferred.unsafeMake<V, E>(undefined as any)
      const generation = generations.get(key) ?? 0
      inflight.set(key, deferred)
      return options.lookup(key).pipe(
        Effect.onExit((exit) => {
          if (inflight.get(key) === deferred) inflight.delete(key)
          if (Exit.isSuccess(exit) && (generations.get(key) ?? 0) === generation) store(key, exit.value)
          return Deferred.done(deferred, exit)
        })
      )
    }

    const get = (key: K): Effect.Effect<V, E, R> =>
      Effect.suspend(() => {
        const hit = entries.get(key)
        if (hit !== undefined && hit.expires > clock.unsafeCurrentTimeMillis()) return Effect.succeed(hit.value)
        return miss(key)
      })

    const invalidate = (key: K) =>
      Effect.sync(() => {
        entries.delete(key)
        // later callers start a fresh lookup instead of joining one that may have read the old value
        inflight.delete(key)
        generations.set(key, (generations.get(key) ?? 0) + 1)
        if (generations.size > options.capacity) generations.clear()
      })

    return { get, invalidate } as const
  })
