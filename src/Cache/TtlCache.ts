import { Deferred, Effect, Exit, FiberId } from "effect"

interface Entry<V> {
  readonly value: V
  expires: number
  /** when it was last read (or stored) */
  usedAt: number
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
    let clears = 0

    // whether an entry was read or stored since the last recheck began, and who waits for that
    let usedSinceRecheck = false
    let waiter: Deferred.Deferred<void> | undefined
    const used = () => {
      usedSinceRecheck = true
      if (waiter !== undefined) Deferred.unsafeDone(waiter, Exit.void)
      waiter = undefined
    }

    const store = (key: K, value: V) => {
      if (entries.size >= options.capacity) {
        // Map iterates in insertion order: drop the oldest tenth
        let n = Math.ceil(options.capacity / 10)
        for (const k of entries.keys()) {
          entries.delete(k)
          if (--n === 0) break
        }
      }
      const now = clock.unsafeCurrentTimeMillis()
      entries.set(key, { value, expires: now + options.ttlMillis(value), usedAt: now })
      used()
    }

    const miss = (key: K): Effect.Effect<V, E, R> => {
      const pending = inflight.get(key)
      if (pending !== undefined) return Deferred.await(pending)
      const deferred = Deferred.unsafeMake<V, E>(undefined as any)
      const generation = generations.get(key)
      const epoch = clears
      inflight.set(key, deferred)
      return options.lookup(key).pipe(
        Effect.onExit((exit) => {
          if (inflight.get(key) === deferred) inflight.delete(key)
          if (Exit.isSuccess(exit) && generations.get(key) === generation && clears === epoch) {
            store(key, exit.value)
          }
          return Deferred.done(deferred, exit)
        })
      )
    }

    const get = (key: K): Effect.Effect<V, E, R> =>
      Effect.suspend(() => {
        const hit = entries.get(key)
        const now = clock.unsafeCurrentTimeMillis()
        if (hit !== undefined && hit.expires > now) {
          hit.usedAt = now
          if (!usedSinceRecheck) used()
          return Effect.succeed(hit.value)
        }
        return miss(key)
      })

    /** The cached value if there is a live one, read synchronously (no lookup); counts as a read. */
    const peek = (key: K): V | undefined => {
      const hit = entries.get(key)
      if (hit === undefined) return undefined
      const now = clock.unsafeCurrentTimeMillis()
      if (hit.expires <= now) return undefined
      hit.usedAt = now
      if (!usedSinceRecheck) used()
      return hit.value
    }

    const invalidate = (key: K) =>
      Effect.sync(() => {
        entries.delete(key)
        // later callers start a fresh lookup instead of joining one that may have read the old value
        inflight.delete(key)
        generations.set(key, (generations.get(key) ?? 0) + 1)
        if (generations.size > options.capacity) {
          // forgetting the counters also stops every lookup under way from storing: one of them may have read
          // a value invalidated just now
          generations.clear()
          clears++
        }
      })

    /**
     * Keeps the entries in use valid without a lookup on the request path: checks in bulk those read within
     * `idleMillis` (`stale` names those to drop, `batch` per call) and gives the others a TTL from the time of the
     * check; the rest leave. An entry is thus never served more than its TTL after a read confirmed it. An entry
     * replaced or invalidated while its check ran is left as it is: what the check read may be older than it.
     */
    const recheck = <E2, R2>(
      batch: number,
      idleMillis: number,
      stale: (entries: ReadonlyArray<readonly [K, V]>) => Effect.Effect<ReadonlySet<K>, E2, R2>
    ) =>
      Effect.gen(function*() {
        usedSinceRecheck = false
        const now = clock.unsafeCurrentTimeMillis()
        const live: Array<readonly [K, Entry<V>]> = []
        for (const [k, e] of entries) {
          if (e.expires <= now || now - e.usedAt > idleMillis) entries.delete(k)
          else live.push([k, e])
        }
        for (let i = 0; i < live.length; i += batch) {
          const slice = live.slice(i, i + batch)
          const readAt = clock.unsafeCurrentTimeMillis()
          const drop = yield* stale(slice.map(([k, e]) => [k, e.value] as const))
          for (const [k, e] of slice) {
            if (entries.get(k) !== e) continue
            if (drop.has(k)) entries.delete(k)
            else e.expires = Math.max(e.expires, readAt + options.ttlMillis(e.value))
          }
        }
      })

    /**
     * Waits until an entry is read or stored after the last recheck began: a recheck loop sleeps on this between rounds, so
     * an idle cache (or a test clock jumping hours ahead) wakes it for nothing.
     */
    const awaitUse = Effect.suspend(() =>
      usedSinceRecheck ? Effect.void : Deferred.await(waiter ??= Deferred.unsafeMake<void>(FiberId.none))
    )

    return { get, peek, invalidate, recheck, awaitUse, size: () => entries.size } as const
  })
