import * as PgClient from "@effect/sql-pg/PgClient"
import { Config, Duration, Effect, Option, Queue, Schedule, type Scope, Stream } from "effect"
import { Pglite } from "../Database/PgliteClient.js"
import { Supervisor } from "../Supervisor.js"
import { EventsChannel, FanoutsChannel, WebhooksChannel } from "./EventsRepo.js"

export type Channel = typeof EventsChannel | typeof WebhooksChannel | typeof FanoutsChannel

/**
 * Commit notices: wake-ups for the dispatcher (events), the webhook worker (deliveries) and the fan-out expander.
 * LISTEN on a real server, plus a slow poll since a LISTEN connection can drop unnoticed; PGlite's own `listen`
 * when embedded, which delivers only committed NOTIFYs. Signals coalesce: a reader wakes, then reads everything new.
 */
export class Notifier extends Effect.Service<Notifier>()("Realtime/Notifier", {
  scoped: Effect.gen(function*() {
    const supervisor = yield* Supervisor
    // one sliding queue of one per reader: a busy reader still finds a signal waiting, never a backlog
    const channels: ReadonlyArray<Channel> = [EventsChannel, WebhooksChannel, FanoutsChannel]
    const readers = new Map(channels.map((channel) => [channel, new Set<Queue.Queue<void>>()]))
    const listeners = new Set<(payload: string | undefined) => void>()
    const wake = (channel: Channel) => {
      for (const q of readers.get(channel)!) q.unsafeOffer(undefined)
    }
    // a poll is a payload of its own (undefined) to the events listeners: a notice may have been lost
    const notified = (channel: Channel) => (payload: string | undefined) => {
      if (channel === EventsChannel) { for (const f of listeners) f(payload) }
      wake(channel)
    }

    const embedded = yield* Effect.serviceOption(Pglite)
    const server = Option.isSome(embedded) ? Option.none() : yield* Effect.serviceOption(PgClient.PgClient)

    const listenTo = (channel: string, f: (payload: string) => void): Effect.Effect<void, never, Scope.Scope> => {
      if (Option.isSome(embedded)) {
        const { db, lock } = embedded.value
        // under the statement lock: LISTEN inside another fiber's open transaction would vanish with its rollback
        return Effect.asVoid(Effect.acquireRelease(
          Effect.scoped(Effect.zipRight(lock.scoped, Effect.promise(() => db.listen(channel, f)))),
          (unlisten) => Effect.scoped(Effect.zipRight(lock.scoped, Effect.promise(() => unlisten())))
        ))
      }
      if (Option.isNone(server)) return Effect.void
      return server.value.listen(channel).pipe(
        Stream.runForEach((payload) => Effect.sync(() => f(payload))),
        // the connection failing (SqlError): LISTEN again; a defect (a listener's) restarts the loop
        Effect.tapError((e) => Effect.logWarning("LISTEN failed; retrying", e)),
        Effect.retry(Schedule.spaced("1 second")),
        (loop) => supervisor.supervise("notifier", `listen ${channel}`, loop),
        Effect.forkScoped,
        Effect.asVoid
      )
    }

    for (const channel of channels) yield* listenTo(channel, notified(channel))
    if (Option.isNone(embedded)) {
      const every = yield* Config.duration("EVENT_POLL_INTERVAL").pipe(Config.withDefault(Duration.seconds(2)))
      // a listener's defect restarts the polling (never ends it)
      const poll = Effect.sync(() => channels.forEach((channel) => notified(channel)(undefined)))
      yield* supervisor.every("notifier", "poll", every, poll)
    }

    return {
      /** Wakes a channel's readers as a notice would (something of this node's is ready for them). */
      wake,
      /** A fresh subscription to one channel; take from it to wait for the next commit notice. */
      subscribe: (channel: Channel) =>
        Effect.acquireRelease(
          Effect.tap(Queue.sliding<void>(1), (q) => Effect.sync(() => readers.get(channel)!.add(q))),
          (q) => Effect.sync(() => readers.get(channel)!.delete(q))
        ) as Effect.Effect<Queue.Dequeue<void>, never, Scope.Scope>,
      /**
       * Each events payload (a committed block's first cursor), synchronously, before readers are woken; on a
       * server also `undefined` at each poll, when a notice may have been lost (a LISTEN connection that dropped).
       */
      onPayload: (f: (payload: string | undefined) => void) =>
        Effect.acquireRelease(Effect.sync(() => listeners.add(f)), () => Effect.sync(() => listeners.delete(f))),
      /**
       * Every payload of a channel of its own, while the scope lasts, never coalesced. One sent while a server's
       * LISTEN connection is down is lost, so a listener also checks the state itself now and then.
       */
      listen: listenTo
    } as const
  })
}) {}
