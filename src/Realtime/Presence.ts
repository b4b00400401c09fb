import * as Resolvers from "@effect/experimental/RequestResolver"
import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Cache, Clock, Config, Duration, Effect, Option, Request, RequestResolver } from "effect"
import { Outbox } from "./Outbox.js"
import { type Account, PresenceRepo } from "./PresenceRepo.js"

export type OfflineResult =
  | { readonly _tag: "Offline" }
  | { readonly _tag: "StillActive"; readonly lastSeen: number }

class Offline extends Request.TaggedClass("Presence/Offline")<OfflineResult, never, { readonly id: Ids.UserId }> {}

/**
 * Presence transitions of agents (spec "Agent presence": connected while the last heartbeat is under 90 minutes
 * old). A transition is a conditional update of the `presence` row plus its `presence.changed` event in one
 * transaction, so it is announced once, to the agent and its owner, however many nodes notice it. Requests are
 * batched: a thousand sockets connecting at once make a handful of transactions.
 * The timers that decide when to ask live in the per-agent fibers (AgentHub).
 */
export class Presence extends Effect.Service<Presence>()("Realtime/Presence", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* PresenceRepo
    const outbox = yield* Outbox
    const window = Duration.toMillis(
      yield* Config.duration("PRESENCE_WINDOW").pipe(Config.withDefault(Duration.minutes(90)))
    )
    // a connect storm's presence writes gathered into a few transactions (Announcer): announced this much later;
    // while a storm goes on, up to the longer wait (Announcer)
    const linger = yield* Config.duration("PRESENCE_BATCH_LINGER").pipe(Config.withDefault(Duration.millis(50)))
    const maxLinger = yield* Config.duration("PRESENCE_BATCH_MAX_LINGER").pipe(
      Config.withDefault(Duration.seconds(2))
    )
    const types = yield* Cache.make({
      capacity: 100_000,
      timeToLive: Duration.minutes(10),
      lookup: (id: Ids.UserId) => Effect.orDie(repo.userType(id))
    })

    const announce = (accounts: ReadonlyArray<Account>, state: "connected" | "offline") =>
      outbox.emitMany(accounts.map((a) => ({
        recipients: a.owner_id === null ? [a.id] : [a.id, a.owner_id],
        type: "presence.changed",
        data: { handle: a.handle, state }
      })))

    /** For callers that only know an id (a heartbeat): presence applies to agents. */
    const isAgent = (userId: Ids.UserId) =>
      Effect.map(types.get(userId), (t) => Option.isSome(t) && t.value.user_type === "agent")

    /** Marks these agents connected and stores `presence.changed` for those it turned, in one transaction. */
    const markConnected = (ids: ReadonlyArray<Ids.UserId>) =>
      Clock.currentTimeMillis.pipe(
        Effect.flatMap((at) => repo.markConnected({ ids: [...new Set(ids)], at })),
        Effect.flatMap((changed) => announce(changed, "connected")),
        sql.withTransaction,
        Effect.orDie
      )

    /** Turns offline those of `ids` with no newer heartbeat, storing `presence.changed`; the rest's state, in order. */
    const markOffline = (ids: ReadonlyArray<Ids.UserId>) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const flipped = yield* repo.markOffline({ ids: [...new Set(ids)], at: now, cutoff: now - window })
        yield* announce(flipped, "offline")
        const done = new Set<string>(flipped.map((a) => a.id))
        const rest = ids.filter((id) => !done.has(id))
        const current = new Map((rest.length > 0 ? yield* repo.current(rest) : []).map((r) => [r.user_id, r]))
        return ids.map((id): OfflineResult => {
          const c = current.get(id)
          // connected with a newer heartbeat than ours (another node saw it): keep watching from that time
          return c?.state === "connected"
            ? { _tag: "StillActive", lastSeen: c.last_seen_at?.getTime() ?? now }
            : { _tag: "Offline" }
        })
      }).pipe(sql.withTransaction, Effect.orDie)

    // one offline transaction at a time: two batches over the same agents never wait on each other's rows
    const serial = yield* Effect.makeSemaphore(1)
    /**
     * Offline requests arriving within `linger` of the first, at most 500, run as one batch, answered in order (on
     * the event loop's time: under a test clock a presence write must not wait for the test to step it).
     */
    const offlineResolver = yield* Resolvers.dataLoader(
      RequestResolver.makeBatched((requests: ReadonlyArray<Offline>) =>
        serial.withPermits(1)(markOffline(requests.map((r) => r.id))).pipe(
          Effect.flatMap((results) =>
            Effect.forEach(requests, (r, i) => Request.succeed(r, results[i]!), { discard: true })
          ),
          Effect.catchAllCause((cause) =>
            Effect.forEach(requests, (r) => Request.failCause(r, cause), { discard: true })
          )
        )
      ),
      { window: linger, maxBatchSize: 500 }
    ).pipe(Effect.withClock(Clock.make()))

    // a week: older rows were left by a node stopped long ago (or by a test clock); the agent's next call settles them
    const resumable = Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.orDie(repo.connectedSince(now - Duration.toMillis(Duration.days(7))))
    )

    return {
      window,
      isAgent,
      /** at most a few hundred agents at once (one statement); the Announcer gathers a connect storm's batches */
      connectedAll: markConnected,
      linger,
      maxLinger,
      offline: (userId: Ids.UserId) => Effect.request(new Offline({ id: userId }), offlineResolver),
      resumable
    } as const
  }),
  dependencies: [PresenceRepo.Default]
}) {}
