import type { Ids } from "@shoal/domain"
import { Array as Arr, Clock, Config, Duration, Effect, PubSub, Stream } from "effect"
import { millis } from "../Edge/Switch.js"
import { Supervisor } from "../Supervisor.js"
import { HeartbeatRepo } from "./HeartbeatRepo.js"

/** An account heard from after a quiet spell, and its type when the call told it. */
export interface Wake {
  readonly userId: Ids.UserId
  readonly userType: Ids.UserType | undefined
}

/** What this node knows of an account's heartbeats. Mutated in place: a touch allocates nothing. */
interface Seen {
  readonly id: Ids.UserId
  /** the newest touch */
  at: number
  /** when this node last wrote the account's time (-Infinity: not yet) */
  written: number
  /** touched since that write: in `pending` */
  pending: boolean
}

/**
 * Every authenticated call counts as a heartbeat. Touches land in memory, so the hot path never writes to the
 * database: every `HEARTBEAT_FLUSH_INTERVAL` one batched UPDATE writes the accounts that are due, the shutdown all of
 * them. An account is due when this node has not written its time for `HEARTBEAT_WRITE_GRAIN` (60 s): a busy agent's
 * row is written once a minute with its newest time (no touch is lost), a first or after-a-quiet-grain touch at the
 * next flush. This node answers from memory (`lastSeen`); only other nodes and the database's readers (presence's
 * 90-minute offline check, key listings) see a time up to a grain old.
 */
export class Heartbeat extends Effect.Service<Heartbeat>()("Auth/Heartbeat", {
  scoped: Effect.gen(function*() {
    const repo = yield* HeartbeatRepo
    const supervisor = yield* Supervisor
    const interval = yield* Config.duration("HEARTBEAT_FLUSH_INTERVAL").pipe(Config.withDefault(Duration.seconds(5)))
    const grain = yield* millis("HEARTBEAT_WRITE_GRAIN", 60_000)
    const latest = new Map<Ids.UserId, Seen>()
    /** the touched since their last write, each once */
    let pending: Array<Seen> = []

    const woken = yield* PubSub.unbounded<Wake>()

    /**
     * A touch at `now`, with `userType` when the caller knows it (presence then need not look it up). A first sighting,
     * or one after a quiet minute, may be a return from offline: presence listens for these (an unbounded hub).
     */
    const touchAt = (userId: Ids.UserId, userType: Ids.UserType | undefined, now: number): void => {
      // offered, not published through a fiber of its own (Effect.runSync): a connect storm wakes once per account
      if (now - record(userId, now) > 60_000) woken.unsafeOffer({ userId, userType })
    }

    /**
     * Records a touch; the account's touch before it (-Infinity: none this node remembers). As `seenAt`: a touch whose
     * presence the caller saw to itself (the event socket's start tells AgentHub), so no wake to ask AgentHub again.
     */
    const record = (userId: Ids.UserId, now: number): number => {
      let seen = latest.get(userId)
      if (seen === undefined) {
        seen = { id: userId, at: -Infinity, written: -Infinity, pending: false }
        latest.set(userId, seen)
      }
      const before = seen.at
      if (now > before) seen.at = now
      markPending(seen)
      return before
    }

    const markPending = (seen: Seen) => {
      if (!seen.pending) {
        seen.pending = true
        pending.push(seen)
      }
    }

    const touch = (userId: Ids.UserId, userType?: Ids.UserType) =>
      Effect.map(Clock.currentTimeMillis, (now) => touchAt(userId, userType, now))

    /** The newest heartbeat this node has seen, flushed or not. */
    const lastSeen = (userId: Ids.UserId): number | undefined => latest.get(userId)?.at

    /** Writes the pending accounts that are due at `now` (all of them when `all`); the others wait in `pending`. */
    const write = (now: number, all: boolean) =>
      Effect.suspend(() => {
        const [waiting, written] = Arr.partition(pending, (seen) => all || now - seen.written >= grain)
        pending = waiting
        for (const seen of written) {
          seen.pending = false
          seen.written = now
        }
        if (written.length === 0) return Effect.void
        return Effect.onError(
          repo.saveLastSeen(new Map(written.map((seen) => [seen.id, seen.at]))),
          // kept for the next flush whatever ended this one: the database failing (SqlError, retried at the next
          // interval), or a defect (the supervisor starts the flusher again, and it writes them)
          () =>
            Effect.sync(() => {
              for (const seen of written) {
                seen.written = -Infinity
                markPending(seen)
              }
            })
        )
      })

    const writeDue = (all: boolean) => Effect.flatMap(Clock.currentTimeMillis, (now) => write(now, all))
    /** Writes every pending time now, due or not (the shutdown's flush). */
    const flush = Effect.catchAll(writeDue(true), (e) => Effect.logWarning("heartbeat flush failed; will retry", e))

    yield* supervisor.every("heartbeat", "flush", interval, writeDue(false))
    yield* Effect.addFinalizer(() => flush)
    // bounded memory: forget what was written long ago (the database has it; a pending account is kept)
    const forget = Effect.map(Clock.currentTimeMillis, (now) => {
      for (const [k, seen] of latest) if (!seen.pending && now - seen.at > 3 * 60 * 60_000) latest.delete(k)
    })
    yield* supervisor.every("heartbeat", "forget", "10 minutes", forget)

    /** Accounts heard from after a quiet spell (not every call). */
    const wakes = Stream.fromPubSub(woken)

    return { touch, touchAt, seenAt: record, lastSeen, wakes } as const
  }),
  dependencies: [HeartbeatRepo.Default]
}) {}
