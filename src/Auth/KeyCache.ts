import { Array as Arr, Clock, Config, Deferred, Duration, Effect, Exit, FiberId, Option, Queue } from "effect"
import { millis } from "../Edge/Switch.js"
import { Supervisor } from "../Supervisor.js"
import { type KeyHolder, KeysRepo } from "./KeysRepo.js"

/** An unknown key is remembered briefly: a flood of bad keys does not reach the database with every request. */
const UNKNOWN_MS = 2_000
/** A key unused this long is no longer read again ahead of its expiry. */
const IDLE_MS = 10 * 60_000
/** key reads at once, and keys a read at most */
const READERS = 2
const MAX_BATCH = 500
/** turns a refresh round of the keys in use is spread over */
const REFRESH_SLICES = 15
/** keys remembered at most (a flood of unknown keys starts the map again rather than grow it) */
const CAPACITY = 200_000

/** A read its key's callers wait on, and the clock reading of the miss that asked for it. */
interface Read {
  readonly outcome: Deferred.Deferred<Option.Option<KeyHolder>>
  readonly at: number
}

/**
 * key hash → its holder (principal and extended limit), so authentication does not touch the database per request.
 * One map of what the reads settled to, each entry trusted until its time: `KEY_CACHE_TTL` (30 s) for a holder found,
 * 2 s for a key not found, a failed read not kept (the next call asks again). A key already read is answered within
 * the caller's own fiber step (`peek`), not an Effect `Cache` hit's ten (bench/README.md, "The one path, profiled").
 *
 * A miss joins its key's read under way, if any, else waits for the next: up to READERS reads run at once, each of up
 * to MAX_BATCH keys, so a lone miss is read at once and a connect storm's keys are read hundreds a statement. Each
 * waiting check gets its read's outcome, a failure's cause included (under a database outage: the contract's 503).
 * Rotation invalidates on this node at once, on others when its notice arrives (src/Realtime/Revocations.ts).
 */
export class KeyCache extends Effect.Service<KeyCache>()("Auth/KeyCache", {
  scoped: Effect.gen(function*() {
    const repo = yield* KeysRepo
    // how long a read of a key is trusted: the bound on serving a key revoked elsewhere whose notice was lost
    const valid = yield* millis("KEY_CACHE_TTL", 30_000)
    const settled = new Map<string, { readonly holder: Option.Option<KeyHolder>; readonly until: number }>()
    const settle = (hash: string, holder: Option.Option<KeyHolder>, now: number) => {
      if (settled.size >= CAPACITY) settled.clear()
      settled.set(hash, { holder, until: now + (Option.isSome(holder) ? valid : UNKNOWN_MS) })
    }

    // each key missed and not yet settled, with the read its callers wait on, from the miss until that read ends;
    // `queued`: those no read has taken yet
    const pending = new Map<string, Read>()
    const queued = new Map<string, Read>()
    const wake = yield* Queue.sliding<void>(1)
    const readers = yield* Effect.makeSemaphore(READERS)
    // the holders as of the latest of the misses' clock readings (an extended limit still running then)
    const read = (batch: ReadonlyMap<string, Read>) => {
      const now = Math.max(0, ...Array.from(batch.values(), (waiter) => waiter.at))
      return Effect.flatMap(
        Effect.exit(Effect.orDie(repo.holders([...batch.keys()], new Date(now)))),
        (exit) =>
          Effect.sync(() => {
            for (const [hash, waiter] of batch) {
              const outcome = Exit.map(exit, (found) => Option.fromNullable(found.get(hash)))
              // an invalidation since the read began took the key out of `pending`: not kept
              if (pending.get(hash) === waiter) {
                pending.delete(hash)
                if (Exit.isSuccess(outcome)) settle(hash, outcome.value, waiter.at)
              }
              Deferred.unsafeDone(waiter.outcome, outcome)
            }
          })
      ).pipe(
        // at shutdown: the checks still waiting are interrupted with it (a completed one keeps its outcome)
        Effect.onInterrupt(() =>
          Effect.sync(() =>
            batch.forEach((waiter, hash) => {
              if (pending.get(hash) === waiter) pending.delete(hash)
              Deferred.unsafeDone(waiter.outcome, Exit.interrupt(FiberId.none))
            })
          )
        )
      )
    }
    const scope = yield* Effect.scope
    const supervisor = yield* Supervisor
    yield* Effect.gen(function*() {
      yield* Queue.take(wake)
      // a permit before the batch is cut: while READERS reads run, the misses pile up for the next
      yield* readers.take(1)
      const batch = new Map<string, Read>()
      for (const [hash, waiter] of queued) {
        if (batch.size === MAX_BATCH) break
        batch.set(hash, waiter)
        queued.delete(hash)
      }
      if (queued.size > 0) yield* Queue.offer(wake, undefined)
      if (batch.size === 0) return yield* readers.release(1)
      yield* Effect.forkIn(Effect.ensuring(read(batch), readers.release(1)), scope)
    }).pipe((turn) => supervisor.forever("key-cache", "reads", turn), Effect.forkScoped)

    /** A key's holder as settled and still trusted at `now`, else undefined. */
    const trusted = (hash: string, now: number): Option.Option<KeyHolder> | undefined => {
      const entry = settled.get(hash)
      if (entry === undefined) return undefined
      if (now > entry.until) {
        settled.delete(hash)
        return undefined
      }
      return entry.holder
    }

    /** The key's settled read is dropped; a read under way answers its callers but is not kept (one not begun is). */
    const forget = (hash: string) => {
      settled.delete(hash)
      if (!queued.has(hash)) pending.delete(hash)
    }

    // keys in use are read again in bulk before their read expires, so an agent calling every few seconds never
    // waits on the database; a key unused for IDLE_MS is left to expire. Each turn reads one of REFRESH_SLICES sets
    // (by hash), each key still within `every`: a connect storm's keys are not all read again in one turn (5,000 of
    // them held the event loop up to 0.5 s, bench/README.md, fleet)
    const every = yield* Config.duration("KEY_CACHE_REFRESH_INTERVAL").pipe(Config.withDefault(Duration.seconds(15)))
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
      for (const batch of Arr.chunksOf(due, 1_000)) {
        const found = yield* repo.holders(batch, new Date(now))
        for (const hash of batch) {
          const holder = found.get(hash)
          if (holder === undefined) forget(hash)
          else settle(hash, Option.some(holder), now)
        }
      }
      for (const [hash, entry] of settled) if (entry.until < now) settled.delete(hash)
    })
    const tick = Duration.divide(every, REFRESH_SLICES).pipe(Option.getOrElse(() => every))
    // the database failing (SqlError): tried again at the next slice; a defect restarts the loop
    yield* supervisor.every("key-cache", "refresh", tick, refresh).pipe(Effect.withClock(Clock.make()))

    return {
      /** the holder of a key, `now` being the caller's clock reading (the key counts as in use) */
      get: (hash: string, now: number): Effect.Effect<Option.Option<KeyHolder>> => {
        used[sliceOf(hash)]!.set(hash, now)
        const known = trusted(hash, now)
        if (known !== undefined) return Effect.succeed(known)
        let waiter = pending.get(hash)
        if (waiter === undefined) {
          waiter = { outcome: Deferred.unsafeMake<Option.Option<KeyHolder>>(FiberId.none), at: now }
          pending.set(hash, waiter)
          queued.set(hash, waiter)
          Queue.unsafeOffer(wake, undefined)
        }
        return Deferred.await(waiter.outcome)
      },
      /**
       * The holder of a key as already read and still trusted at `now`, without a fiber step; `undefined` when it
       * is not (then `get` reads it). The key counts as in use.
       */
      peek: (hash: string, now: number): Option.Option<KeyHolder> | undefined => {
        const known = trusted(hash, now)
        if (known !== undefined) used[sliceOf(hash)]!.set(hash, now)
        return known
      },
      invalidate: (hashes: ReadonlyArray<string>) => Effect.sync(() => hashes.forEach(forget))
    } as const
  }),
  dependencies: [KeysRepo.Default]
}) {}
