import * as HttpApp from "@effect/platform/HttpApp"
import { Config, Deferred, Duration, Effect, FiberMap, FiberRef, Option, Queue } from "effect"

type Job = Effect.Effect<void>

/**
 * One actor per hot wallet account: a fiber in a `FiberMap` keyed by account, draining its inbox one job at a time,
 * so a burst against one account runs in order (and waits in memory, not on row locks holding connections) while
 * other accounts' actors run beside it. An actor idle for `WALLET_ACTOR_IDLE_MS` (default 30 s) ends and is
 * forgotten; the next job starts a new one. Correctness never rests on it: the ledger's conditional update in the
 * database decides every movement (other nodes, or the other process, have their own actors).
 */
export class AccountActors extends Effect.Service<AccountActors>()("Wallet/AccountActors", {
  scoped: Effect.gen(function*() {
    const fibers = yield* FiberMap.make<string>()
    const idle = Duration.millis(
      yield* Config.integer("WALLET_ACTOR_IDLE_MS").pipe(Config.withDefault(30_000), Effect.orDie)
    )
    const inboxes = new Map<string, Queue.Queue<Job>>()

    const worker = (key: string, inbox: Queue.Queue<Job>) =>
      Effect.gen(function*() {
        while (true) {
          const job = yield* Queue.take(inbox).pipe(Effect.timeout(idle), Effect.option)
          if (Option.isSome(job)) {
            yield* job.value
            continue
          }
          // checked and forgotten in one synchronous step: a job offered after it goes to a new actor
          const stop = yield* Effect.sync(() => {
            if (Option.getOrElse(inbox.unsafeSize(), () => 0) > 0) return false
            inboxes.delete(key)
            return true
          })
          if (stop) return
        }
      })

    const enqueue = (key: string, job: Job) =>
      Effect.gen(function*() {
        const existing = inboxes.get(key)
        if (existing !== undefined && existing.unsafeOffer(job)) return
        const inbox = yield* Queue.unbounded<Job>()
        const raced = inboxes.get(key)
        if (raced !== undefined && raced.unsafeOffer(job)) return
        inboxes.set(key, inbox)
        inbox.unsafeOffer(job)
        yield* FiberMap.run(fibers, key, worker(key, inbox))
      })

    /**
     * Runs `effect` in the account's actor, after the jobs queued before it, with the caller's context; the answer
     * (and any response header the job set, like `Idempotent-Replayed`) comes back to the caller.
     */
    const serialize = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.gen(function*() {
        const context = yield* Effect.context<R>()
        const done = yield* Deferred.make<readonly [A, Option.Option<HttpApp.PreResponseHandler>], E>()
        const job = Effect.provide(
          Effect.flatMap(
            effect,
            (a) => Effect.map(FiberRef.get(HttpApp.currentPreResponseHandlers), (h) => [a, h] as const)
          ),
          context
        ).pipe(
          // each job starts with no response handlers of its own: the worker fiber outlives it
          Effect.locally(HttpApp.currentPreResponseHandlers, Option.none()),
          Effect.exit,
          Effect.flatMap((exit) => Deferred.done(done, exit)),
          Effect.asVoid
        )
        yield* enqueue(key, job)
        const [a, handlers] = yield* Deferred.await(done)
        if (Option.isSome(handlers)) yield* HttpApp.appendPreResponseHandler(handlers.value)
        return a
      })

    const size = FiberMap.size(fibers)

    return { serialize, size } as const
  })
}) {}
