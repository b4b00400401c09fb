import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Config, Deferred, Effect, Exit } from "effect"
import { millis } from "../Edge/Switch.js"
import { Notifier } from "../Realtime/Notifier.js"

/** The channel migration 0011's triggers notify, with the written table's name as payload. */
export const ReadsChannel = "shoal_reads"

/** A table whose writes can change a cached page (each has a trigger in migrations/0011_read_notices.ts). */
export type Table =
  | "tasks"
  | "task_comments"
  | "projects"
  | "project_members"
  | "users"
  | "posts"
  | "follows"
  | "post_votes"

interface Entry<V> {
  readonly value: V
  readonly bytes: number
  readonly stamp: number
  readonly expires: number
}

/**
 * Encoded answers of hot list reads (a page of tasks, a feed page). A page is dropped when ANY table it is read from
 * is written; keys include the viewer, so the access decision is cached and dropped with the page. This node's
 * non-GET requests drop every page before they answer (`touchAll`); other nodes' writes arrive as a trigger's
 * commit notice (milliseconds late), and notices lost while LISTEN is down are bounded by `READ_CACHE_TTL` (2 s).
 */
export class ReadCache extends Effect.Service<ReadCache>()("Cache/ReadCache", {
  scoped: Effect.gen(function*() {
    const notifier = yield* Notifier
    const ttl = yield* millis("READ_CACHE_TTL", 2_000).pipe(Effect.orDie)
    // off only in tests that show this node's own writes are seen without any notice
    const notices = yield* Config.boolean("READ_CACHE_NOTICES").pipe(Config.withDefault(true), Effect.orDie)
    const clock = yield* Effect.clock
    // every counter only grows, so the sum over a page's tables changes exactly when one of them does
    const versions = new Map<string, number>()
    let epoch = 0
    if (notices) {
      yield* notifier.listen(ReadsChannel, (table) => versions.set(table, (versions.get(table) ?? 0) + 1))
    }

    /** A cache of values read from `tables`, at most `maxBytes` of them (by the size the caller states). */
    const make = <V>(options: {
      readonly tables: ReadonlyArray<Table>
      readonly maxBytes: number
      readonly size: (value: V) => number
    }) => {
      const entries = new Map<string, Entry<V>>()
      // a miss in flight, joined only by callers that see the same stamp (a write since then needs a fresh read)
      const inflight = new Map<string, { readonly stamp: number; readonly deferred: Deferred.Deferred<V, unknown> }>()
      let bytes = 0
      const stamp = () => {
        let s = epoch
        for (const t of options.tables) s += versions.get(t) ?? 0
        return s
      }
      const drop = (key: string) => {
        const old = entries.get(key)
        if (old === undefined) return
        entries.delete(key)
        bytes -= old.bytes
      }
      const store = (key: string, value: V, at: number) => {
        drop(key)
        const size = options.size(value)
        if (size > options.maxBytes) return
        // Map iterates in insertion order: the oldest go first
        for (const k of entries.keys()) {
          if (bytes + size <= options.maxBytes) break
          drop(k)
        }
        entries.set(key, { value, bytes: size, stamp: at, expires: clock.unsafeCurrentTimeMillis() + ttl })
        bytes += size
      }

      /** The cached value if nothing it was read from changed since, else `lookup`'s (a thunk: a hit builds nothing). */
      const get = <E, R>(key: string, lookup: () => Effect.Effect<V, E, R>): Effect.Effect<V, E, R> =>
        Effect.suspend(() => {
          const now = stamp()
          const hit = entries.get(key)
          if (hit !== undefined) {
            if (hit.stamp === now && hit.expires > clock.unsafeCurrentTimeMillis()) return Effect.succeed(hit.value)
            drop(key)
          }
          const pending = inflight.get(key)
          if (pending !== undefined && pending.stamp === now) {
            // the reader it joined was interrupted (its client went away): read again rather than fail
            return Effect.catchAllCause(
              Deferred.await(pending.deferred) as Effect.Effect<V, E>,
              (cause) => Cause.isInterruptedOnly(cause) ? get(key, lookup) : Effect.failCause(cause)
            )
          }
          const deferred = Deferred.unsafeMake<V, unknown>(undefined as any)
          inflight.set(key, { stamp: now, deferred })
          return lookup().pipe(
            Effect.onExit((exit) => {
              if (inflight.get(key)?.deferred === deferred) inflight.delete(key)
              // stored with the stamp from before the read: a write noticed meanwhile makes it stale at once; never
              // over an entry read after it
              if (Exit.isSuccess(exit) && (entries.get(key)?.stamp ?? -1) <= now) store(key, exit.value, now)
              return Deferred.done(deferred, exit)
            })
          )
        })

      return { get, size: () => entries.size } as const
    }

    return {
      make,
      /** Drops every cached page of this node: called once a request that may have written is handled. */
      touchAll: () => void epoch++
    } as const
  })
}) {}

const encoder = new TextEncoder()

/**
 * A hot read's answers as JSON responses (`{ status: "success", ...answer }`), the bodies from the read cache while
 * nothing in `tables` changed (see ReadCache for when it is dropped); only a miss calls `read`. Not Effect.fn, nor
 * `read` called on a hit: that captures a stack trace per call, which showed in the profile of a hit.
 */
export const bodyCache = (tables: ReadonlyArray<Table>) =>
  Effect.map(ReadCache, (reads) => {
    const cache = reads.make<Uint8Array>({ tables, maxBytes: 32 * 1024 * 1024, size: (body) => body.byteLength })
    return <E, R>(key: string, read: () => Effect.Effect<object, E, R>) =>
      cache.get(key, () => Effect.map(read(), (r) => encoder.encode(JSON.stringify({ status: "success", ...r })))).pipe(
        Effect.map((body) => HttpServerResponse.uint8Array(body, { contentType: "application/json" }))
      )
  })
