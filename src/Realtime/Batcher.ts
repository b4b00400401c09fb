import { Deferred, Duration, Effect, Queue, type Scope } from "effect"

/**
 * Coalesces single requests into batches: callers wait for their own result while one fiber runs whatever has
 * queued up (at most `max`) as one batch. A connect storm of 10,000 sockets then costs tens of transactions,
 * not 10,000.
 *
 * With `linger`, a batch that is not full waits that long after its first request for more before it runs. On the
 * embedded database a statement's fixed cost (BEGIN, COMMIT, the exchange itself: milliseconds of the server's
 * own thread) outweighs its rows: without it, a storm of connects on a busy server ran in batches of about ten,
 * each request's batch starting as soon as the last ended (bench/README.md, fanout).
 */
// the event loop's time, not the application Clock's: the wait is for requests arriving on sockets, and a test on
// TestClock must not have to step the clock for a presence batch to run
export const realSleep = (ms: number) =>
  Effect.async<void>((resume) => {
    const t = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(t))
  })

export const make = <A, B>(
  run: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>>,
  max = 500,
  linger: Duration.DurationInput = Duration.zero
): Effect.Effect<(item: A) => Effect.Effect<B>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<B>]>()
    type Request = readonly [A, Deferred.Deferred<B>]
    const ms = Duration.toMillis(Duration.decode(linger))
    const take: Effect.Effect<ReadonlyArray<Request>> = Effect.flatMap(
      Queue.takeBetween(queue, 1, max),
      (first): Effect.Effect<ReadonlyArray<Request>> =>
        ms <= 0 || first.length >= max
          ? Effect.succeed([...first])
          : Effect.map(
            Effect.zipRight(realSleep(ms), Queue.takeUpTo(queue, max - first.length)),
            (more) => [...first, ...more]
          )
    )
    yield* take.pipe(
      Effect.flatMap((requests) =>
        run(requests.map(([a]) => a)).pipe(
          Effect.flatMap((results) =>
            Effect.forEach(requests, ([, d], i) => Deferred.succeed(d, results[i]!), { discard: true })
          ),
          Effect.catchAllCause((cause) =>
            Effect.forEach(requests, ([, d]) => Deferred.failCause(d, cause), { discard: true })
          )
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )
    return (item: A) =>
      Effect.flatMap(Deferred.make<B>(), (d) => Effect.zipRight(Queue.offer(queue, [item, d]), Deferred.await(d)))
  })
