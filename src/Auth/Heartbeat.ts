import type { Ids } from "@shoal/domain"
import { Clock, Config, Duration, Effect, PubSub, Stream } from "effect"
import { Supervisor } from "../Supervisor.js"
import { HeartbeatRepo } from "./HeartbeatRepo.js"

/** An account heard from after a quiet spell, and its type when the call told it. */
export interface Wake {
  readonly userId: Ids.UserId
  readonly userType: Ids.UserType | undefined
}

/**
 * Every authenticated call counts as a heartbeat. Touches land in memory and are flushed in one batched
 * UPDATE every few seconds (and at shutdown), so the hot path never writes to the database.
 */
export class Heartbeat extends Effect.Service<Heartbeat>()("Auth/Heartbeat", {
  scoped: Effect.gen(function*() {
    const repo = yield* HeartbeatRepo
    const supervisor = yield* Supervisor
    const interval = yield* Config.duration("HEARTBEAT_FLUSH_INTERVAL").pipe(Config.withDefault(Duration.seconds(5)))
    let pending = new Map<Ids.UserId, number>()
    const latest = new Map<Ids.UserId, number>()

    const woken = yield* PubSub.unbounded<Wake>()

    /**
     * A touch at `now`. `userType` when the caller knows it (the key named the account): presence then need not look it up. A first sighting, or one after a
     * quiet minute, may be a return from offline: presence listens for these (an unbounded hub: never suspends).
     */
    const touchAt = (userId: Ids.UserId, userType: Ids.UserType | undefined, now: number): void => {
      const before = latest.get(userId)
      seenAt(userId, now)
      // offered, not published through a fiber of its own (Effect.runSync): a connect storm wakes once per account
      if (before === undefined || now - before > 60_000) woken.unsafeOffer({ userId, userType })
    }

    /**
     * A touch whose presence the caller has already seen to (the event socket's start tells AgentHub itself): no
     * wake, which would only ask AgentHub again what it was just told.
     */
    const seenAt = (userId: Ids.UserId, now: number): void => {
      pending.set(userId, now)
      latest.set(userId, now)
    }

    const touch = (userId: Ids.UserId, userType?: Ids.UserType) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => touchAt(userId, userType, now)))

    /** The newest heartbeat this node has seen, flushed or not. */
    const lastSeen = (userId: Ids.UserId): number | undefined => latest.get(userId)

    const flush = Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const batch = pending
      pending = new Map()
      return repo.saveLastSeen(batch).pipe(
        // kept for the next flush whatever ended this one: the database failing (SqlError, retried at the next
        // interval), or a defect (the supervisor starts the flusher again, and it writes them)
        Effect.onError(() =>
          Effect.sync(() => {
            for (const [k, v] of batch) if (!pending.has(k)) pending.set(k, v)
          })
        ),
        Effect.catchAll((e) => Effect.logWarning("heartbeat flush failed; will retry", e)),
        Effect.asVoid
      )
    })

    yield* Effect.forkScoped(supervisor.forever("heartbeat", "flush", Effect.delay(flush, interval)))
    yield* Effect.addFinalizer(() => flush)
    // bounded memory: forget what was flushed long ago (the database has it)
    yield* Effect.forkScoped(supervisor.forever(
      "heartbeat",
      "forget",
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          for (const [k, t] of latest) if (now - t > 3 * 60 * 60_000) latest.delete(k)
        })).pipe(Effect.delay("10 minutes"))
    ))

    /** Accounts heard from after a quiet spell (not every call). */
    const wakes = Stream.fromPubSub(woken)

    return { touch, touchAt, seenAt, lastSeen, flush, wakes } as const
  }),
  dependencies: [HeartbeatRepo.Default]
}) {}
