import { Deferred, Effect, Queue, type Scope } from "effect"

/**
 * Coalesces single requests into batches: callers wait for their own result while one fiber runs whatever has
 * queued up (at most `max`) as one batch. A connect storm of 10,000 sockets then costs tens of transactions,
 * not 10,000.
 */
export const make = <A, B>(
  run: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>>,
  max = 500
): Effect.Effect<(item: A) => Effect.Effect<B>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<B>]>()
    yield* Queue.takeBetween(queue, 1, max).pipe(
      Effect.flatMap((chunk) => {
        const requests = [...chunk]
        return run(requests.map(([a]) => a)).pipe(
          Effect.flatMap((results) =>
            Effect.forEach(requests, ([, d], i) => Deferred.succeed(d, results[i]!), { discard: true })
          ),
          Effect.catchAllCause((cause) =>
            Effect.forEach(requests, ([, d]) => Deferred.failCause(d, cause), { discard: true })
          )
        )
      }),
      Effect.forever,
      Effect.forkScoped
    )
    return (item: A) =>
      Effect.flatMap(Deferred.make<B>(), (d) => Effect.zipRight(Queue.offer(queue, [item, d]), Deferred.await(d)))
  })
