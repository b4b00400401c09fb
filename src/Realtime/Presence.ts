import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Cache, Clock, Config, Duration, Effect, Option } from "effect"
import * as Batcher from "./Batcher.js"
import { Outbox } from "./Outbox.js"
import { type Account, PresenceRepo } from "./PresenceRepo.js"

export type OfflineResult =
  | { readonly _tag: "Offline" }
  | { readonly _tag: "StillActive"; readonly lastSeen: number }

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
    // a connect storm's presence writes gathered into a few transactions (Batcher): announced this much later;
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
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* Effect.flatMap(repo.markConnected([...new Set(ids)], now), (changed) => announce(changed, "connected"))
          .pipe(sql.withTransaction, Effect.orDie)
      })

    const connected = yield* Batcher.make(
      (ids: ReadonlyArray<Ids.UserId>) => Effect.as(markConnected(ids), ids.map(() => undefined)),
      500,
      linger
    )

    const offline = yield* Batcher.make(
      (ids: ReadonlyArray<Ids.UserId>) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          return yield* Effect.gen(function*() {
            const flipped = yield* repo.markOffline([...new Set(ids)], now, now - window)
            yield* announce(flipped, "offline")
            const done = new Set<string>(flipped.map((a) => a.id))
            const rest = ids.filter((id) => !done.has(id))
            const current = new Map(
              (rest.length > 0 ? yield* repo.current(rest) : []).map((r) => [r.user_id as string, r])
            )
            return ids.map((id): OfflineResult => {
              const c = current.get(id)
              // connected with a newer heartbeat than ours (another node saw it): keep watching from that time
              return c?.state === "connected"
                ? { _tag: "StillActive", lastSeen: c.last_seen_at?.getTime() ?? now }
                : { _tag: "Offline" }
            })
          }).pipe(sql.withTransaction, Effect.orDie)
        }),
      500,
      linger
    )

    // a week: older rows were left by a node stopped long ago (or by a test clock); the agent's next call settles them
    const resumable = Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.orDie(repo.connectedSince(now - Duration.toMillis(Duration.days(7))))
    )

    return {
      window,
      isAgent,
      connected: (userId: Ids.UserId) => Effect.asVoid(connected(userId)),
      /** many agents at once (at most a few hundred: one statement), for a caller that gathers its own batch */
      connectedAll: markConnected,
      linger,
      maxLinger,
      offline,
      resumable
    } as const
  }),
  dependencies: [PresenceRepo.Default]
}) {}
