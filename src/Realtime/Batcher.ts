import { Deferred, Duration, Effect, Exit, Queue, type Scope } from "effect"

/**
 * Coalesces single requests into batches: callers wait for their own result while one fiber runs whatever has
 * queued up (at most `max`) as one batch. A connect storm of 10,000 sockets then costs tens of transactions,
 * not 10,000.
 *
 * With `linger`, a batch that is not full waits that long after its first request for more before it runs. On the
 * embedded database a statement's fixed cost (BEGIN, COMMIT, the exchange itself: milliseconds of the server's
 * own thread) outweighs its rows: without it, a storm of connects on a busy server ran in batches of about ten,
 * each request's batch starting as soon as the last ended (bench/README.md, fanout). With `maxLinger` longer than
 * `linger`, a batch lingers again as long as each linger brought more requests (a storm still arriving), up to
 * `maxLinger` in all: a lone request waits `linger`, as before, and a storm's batches fill up (one key lookup per
 * few hundred sockets rather than per 30: about 1 ms of the embedded database's fixed cost each).
 */
// the event loop's time, not the application Clock's: the wait is for requests arriving on sockets, and a test on
// TestClock must not have to step the clock for a presence batch to run
export const realSleep = (ms: number) =>
  Effect.async<void>((resume) => {
    const t = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(t))
  })

/**
 * Waits `linger` ms, then again while the last wait brought more (`more` takes what came and says whether it is
 * worth another wait), up to `maxLinger` ms in all. A lone request waits one linger; a storm still arriving keeps
 * the batch open until it calms or the budget is spent. The batcher below and the presence announcer
 * (src/Realtime/Announcer.ts) gather by this one rule.
 */
export const lingerWhileMore = (
  linger: number,
  maxLinger: number,
  more: Effect.Effect<boolean>
): Effect.Effect<void> => {
  const wait = (waited: number): Effect.Effect<void> =>
    linger <= 0 || waited >= maxLinger
      ? Effect.void
      : Effect.zipRight(
        realSleep(Math.min(linger, maxLinger - waited)),
        Effect.flatMap(more, (again) => again ? wait(waited + linger) : Effect.void)
      )
  return wait(0)
}

/** A batcher's two doors: an Effect that waits for its result, and a callback for code outside any fiber. */
export interface Batched<A, B> {
  readonly request: (item: A) => Effect.Effect<B>
  /** queues `item` without a fiber of its own: `done` is called once, with the result or the batch's failure */
  readonly submit: (item: A, done: (exit: Exit.Exit<B>) => void) => void
}

export const makeBatched = <A, B>(
  run: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>>,
  max = 500,
  linger: Duration.DurationInput = Duration.zero,
  maxLinger: Duration.DurationInput = linger
): Effect.Effect<Batched<A, B>, never, Scope.Scope> =>
  Effect.gen(function*() {
    type Request = readonly [A, (exit: Exit.Exit<B>) => void]
    const queue = yield* Queue.unbounded<Request>()
    const ms = Duration.toMillis(Duration.decode(linger))
    const maxMs = Math.max(ms, Duration.toMillis(Duration.decode(maxLinger)))
    // lingers again while each linger brought more, up to `max` requests or `maxLinger` in all
    const take = Effect.flatMap(Queue.takeBetween(queue, 1, max), (first) => {
      const batch: Array<Request> = [...first]
      const more = Effect.suspend(() =>
        Effect.map(Queue.takeUpTo(queue, max - batch.length), (taken) => {
          batch.push(...taken)
          return taken.length > 0 && batch.length < max
        })
      )
      return batch.length >= max ? Effect.succeed(batch) : Effect.as(lingerWhileMore(ms, maxMs, more), batch)
    })
    yield* take.pipe(
      Effect.flatMap((requests) =>
        run(requests.map(([a]) => a)).pipe(
          Effect.flatMap((results) =>
            Effect.sync(() => requests.forEach(([, done], i) => done(Exit.succeed(results[i]!))))
          ),
          Effect.catchAllCause((cause) =>
            Effect.sync(() => requests.forEach(([, done]) => done(Exit.failCause(cause))))
          )
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )
    const submit = (item: A, done: (exit: Exit.Exit<B>) => void) => void queue.unsafeOffer([item, done])
    return {
      submit,
      // a Deferred, as before: with an Effect.async resumed by `submit`'s callback instead, the EventStream reconnect
      // test (test/Realtime/Events.test.ts) failed every time on a server database; why is not known yet
      request: (item: A) =>
        Effect.flatMap(
          Deferred.make<B>(),
          (d) =>
            Effect.zipRight(Effect.sync(() => submit(item, (exit) => Deferred.unsafeDone(d, exit))), Deferred.await(d))
        )
    }
  })

export const make = <A, B>(
  run: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>>,
  max = 500,
  linger: Duration.DurationInput = Duration.zero,
  maxLinger: Duration.DurationInput = linger
): Effect.Effect<(item: A) => Effect.Effect<B>, never, Scope.Scope> =>
  Effect.map(makeBatched(run, max, linger, maxLinger), (batched) => batched.request)
