import { Cache, Clock, Config, Deferred, Duration, Effect, Exit, FiberId, Option, Queue, Schedule } from "effect"
import { Supervisor } from "../Supervisor.js"
import { type KeyHolder, KeysRepo } from "./KeysRepo.js"

/** An unknown key is remembered briefly: a flood of bad keys does not reach the database with every request. */
const UNKNOWN = Duration.seconds(2)
/** A key unused this long is no longer read again ahead of its expiry. */
const IDLE_MS = 10 * 60_000
/** key reads at once, and keys a read at most */
const READERS = 2
const MAX_BATCH = 500
/** turns a refresh round of the keys in use is spread over */
const REFRESH_SLICES = 15

/**
 * key hash → its holder (principal and extended limit), so authentication does not touch the database per request:
 * an Effect `Cache` (concurrent misses for one key share one lookup; a failed read is not kept). Keys in use are
 * read again in bulk before they expire, so only a key new to this node waits on the database. Misses of
 * different keys are read together: a miss joins the keys waiting for the next read, and up to READERS reads run
 * at once, so a lone miss is read at once and a connect storm's keys (each new to this node) are read hundreds a
 * statement while the reads before them run. Each waiting check is completed with its read's outcome, a failed
 * read's cause included (under a database outage: the contract's 503). (Through `@effect/experimental`'s data
 * loader its batch fiber interrupted the waiting checks, which then answered an empty 503.) Rotation on this node
 * invalidates at once, other nodes when its notice arrives (src/Realtime/Revocations.ts); a read is trusted for
 * `KEY_CACHE_TTL` (30 s) should a notice be lost.
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
    let invalidations = 0
    const settle = (hash: string, holder: Option.Option<KeyHolder>, now: number) => {
      // a flood of unknown keys: start again rather than grow past the Cache (whose reads still answer)
      if (settled.size >= capacity) settled.clear()
      settled.set(hash, { holder, until: now + Duration.toMillis(Option.isSome(holder) ? valid : UNKNOWN) })
    }

    // keys waiting for a read (with the latest clock reading of their callers), and the reads' fiber
    const waiting = new Map<string, Deferred.Deferred<Option.Option<KeyHolder>>>()
    let waitingNow = 0
    const wake = yield* Queue.sliding<void>(1)
    const readers = yield* Effect.makeSemaphore(READERS)
    const read = (batch: ReadonlyMap<string, Deferred.Deferred<Option.Option<KeyHolder>>>, now: number) =>
      Effect.flatMap(
        Effect.exit(Effect.orDie(repo.holders([...batch.keys()], new Date(now)))),
        (exit) =>
          Effect.sync(() => {
            for (const [hash, waiter] of batch) {
              Deferred.unsafeDone(waiter, Exit.map(exit, (found) => Option.fromNullable(found.get(hash))))
            }
          })
      ).pipe(
        // at shutdown: the checks still waiting are interrupted with it (a completed one keeps its outcome)
        Effect.onInterrupt(() =>
          Effect.sync(() => batch.forEach((waiter) => Deferred.unsafeDone(waiter, Exit.interrupt(FiberId.none))))
        )
      )
    const scope = yield* Effect.scope
    const supervisor = yield* Supervisor
    yield* Effect.gen(function*() {
      yield* Queue.take(wake)
      // a permit before the batch is cut: while READERS reads run, the misses pile up for the next
      yield* readers.take(1)
      const batch = new Map<string, Deferred.Deferred<Option.Option<KeyHolder>>>()
      for (const [hash, waiter] of waiting) {
        if (batch.size === MAX_BATCH) break
        batch.set(hash, waiter)
      }
      for (const hash of batch.keys()) waiting.delete(hash)
      if (waiting.size > 0) yield* Queue.offer(wake, undefined)
      if (batch.size === 0) return yield* readers.release(1)
      yield* Effect.forkIn(Effect.ensuring(read(batch, waitingNow), readers.release(1)), scope)
    }).pipe((turn) => supervisor.forever("key-cache", "reads", turn), Effect.forkScoped)

    const cache = yield* Cache.makeWith({
      capacity,
      lookup: (hash: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.suspend(() => {
            let waiter = waiting.get(hash)
            if (waiter === undefined) {
              waiter = Deferred.unsafeMake<Option.Option<KeyHolder>>(FiberId.none)
              if (waiting.size === 0) Queue.unsafeOffer(wake, undefined)
              waiting.set(hash, waiter)
            }
            if (now > waitingNow) waitingNow = now
            // a read that an invalidation overtook is not settled (the Cache drops it too)
            const since = invalidations
            return Effect.map(Deferred.await(waiter), (holder) => {
              if (since === invalidations) settle(hash, holder, now)
              return holder
            })
          })),
      // a failed read (the database down) is not kept: the next call asks again
      timeToLive: (exit) => Exit.isFailure(exit) ? Duration.zero : Option.isSome(exit.value) ? valid : UNKNOWN
    })

    // keys in use are read again before their read expires, in the background and in bulk (a thousand a
    // statement), so an agent calling every few seconds never waits on the database; a key unused for IDLE is left
    // to expire, and its next call reads it. The keys are kept in REFRESH_SLICES sets by their hash, and each turn
    // (every `every / REFRESH_SLICES`) reads one set again: every key is still read within `every` of its last read,
    // but the keys of a connect storm, all read within seconds, are not all read and set again in one turn
    // (5,000 of them: 0.12-0.53 s of the event loop, bench/README.md, fleet)
    const every = yield* Config.duration("KEY_CACHE_REFRESH_INTERVAL").pipe(
      Config.withDefault(Duration.seconds(15))
    )
    const used = Array.from({ length: REFRESH_SLICES }, () => new Map<string, number>())
    // by the hash's last hex digits (a sha256: evenly spread)
    const sliceOf = (hash: string) => (Number.parseInt(hash.slice(-6), 16) || 0) % REFRESH_SLICES
    let turn = 0
    const refresh = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const slice = turn++ % REFRESH_SLICES
      const recent = used[slice]!
      used[slice] = new Map()
      const due: Array<string> = []
      for (const [hash, at] of recent) {
        if (now - at > IDLE_MS) continue
        used[slice]!.set(hash, at)
        due.push(hash)
      }
      // a thousand keys a statement; a key no longer live is dropped, and its next call is refused
      for (let i = 0; i < due.length; i += 1_000) {
        const batch = due.slice(i, i + 1_000)
        const found = yield* repo.holders(batch, new Date(now))
        for (const hash of batch) {
          const holder = found.get(hash)
          if (holder === undefined) {
            invalidations++
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
    const tick = Duration.divide(every, REFRESH_SLICES).pipe(Option.getOrElse(() => every))
    yield* refresh.pipe(
      // the database failing (SqlError): tried again at the next slice; a defect restarts the loop
      Effect.catchAll((e) => Effect.logWarning("key cache refresh failed", e)),
      Effect.repeat(Schedule.spaced(tick)),
      Effect.delay(tick),
      (loop) => supervisor.supervise("key-cache", "refresh", loop),
      Effect.withClock(Clock.make()),
      Effect.forkScoped
    )

    return {
      /** the holder of a key, `now` being the caller's clock reading (the key counts as in use) */
      get: (hash: string, now: number) => {
        used[sliceOf(hash)]!.set(hash, now)
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
        used[sliceOf(hash)]!.set(hash, now)
        return entry.holder
      },
      invalidate: (hashes: ReadonlyArray<string>) =>
        Effect.forEach(hashes, (h) => {
          invalidations++
          settled.delete(h)
          return cache.invalidate(h)
        }, { discard: true })
    } as const
  }),
  dependencies: [KeysRepo.Default]
}) {}
