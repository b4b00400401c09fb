import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Data, Deferred, Effect, Exit, Queue, type Scope } from "effect"
import { Supervisor } from "../Supervisor.js"

/**
 * Group commit: several requests' writes in one transaction. A request enqueues its write and waits; one fiber takes
 * up to `maxBatch` queued writes, runs them in one transaction and commits, and only then completes each request
 * with its write's result: a write is acknowledged once it is durable, never before. Whatever a write stores in the
 * outbox goes in the same transaction, so its events commit with it (or not at all).
 *
 * One failing write fails only its own request. The batch is first run as is, statement after statement (the
 * common case: nothing fails, and a write costs its own statements plus its share of BEGIN and COMMIT). If a write
 * fails, that attempt is rolled back and the batch runs again with each write inside its own SAVEPOINT, rolled back
 * to on failure: the failing request gets its error, the others commit. A write may therefore run twice, its first
 * run rolled back, so it must have no effect outside the transaction that a second run would repeat wrongly (what
 * it keeps in memory, it keeps after its result comes back).
 *
 * Why: on the embedded database each transaction's BEGIN and COMMIT are protocol exchanges as costly as the write
 * itself, and the commit writes the WAL; one transaction for N writes pays them once (bench/README.md, "writes").
 */
export interface GroupCommit {
  /**
   * Runs `write` in a shared transaction; succeeds or fails with it once that transaction committed (or rolled
   * back). The database failing the transaction itself (BEGIN, COMMIT) is a defect, or a SqlError without batching.
   */
  readonly submit: <A, E>(write: Effect.Effect<A, E>) => Effect.Effect<A, E | SqlError>
}

interface Job {
  readonly write: Effect.Effect<unknown, unknown>
  readonly done: Deferred.Deferred<unknown, unknown>
}

/**
 * A group committer over the current SqlClient, its fiber living as long as `Scope`. With `enabled: false`, each
 * write is its own transaction, run in the caller's fiber (what a database server may prefer; see bench/README.md).
 */
export const make = (options: {
  readonly maxBatch: number
  readonly enabled: boolean
  /**
   * Wraps the batch's writes in its shared transaction (not a lone write's, nor the isolated retry's): Outbox's
   * `gathered`, which stores every write's events in one statement at the end. Its own failure makes the batch run
   * again isolated, like a write's.
   */
  readonly gather?: <A, E>(body: Effect.Effect<A, E>) => Effect.Effect<A, E | SqlError>
}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (!options.enabled) {
      return { submit: sql.withTransaction } satisfies GroupCommit
    }
    const supervisor = yield* Supervisor
    const queue = yield* Effect.acquireRelease(Queue.unbounded<Job>(), Queue.shutdown)

    /** Every write, in order, without savepoints; stops at the first failure (the transaction is then lost). */
    const optimistic = (jobs: ReadonlyArray<Job>) =>
      Effect.forEach(
        jobs,
        (job) => Effect.filterOrFail(Effect.exit(job.write), Exit.isSuccess, () => new FailedWrite())
      )

    /** Every write inside its own SAVEPOINT (a nested withTransaction), rolled back to if it fails. */
    const isolated = (jobs: ReadonlyArray<Job>) =>
      Effect.forEach(jobs, (job) => Effect.exit(sql.withTransaction(job.write)))

    const gather = <A>(body: Effect.Effect<A, FailedWrite>): Effect.Effect<A, FailedWrite> =>
      options.gather === undefined
        ? body
        : options.gather(body).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.fail(new FailedWrite())
          )
        )

    /** Completes each request with what its write left, once its transaction's fate is known. */
    const settle = (jobs: ReadonlyArray<Job>, outcomes: ReadonlyArray<Exit.Exit<unknown, unknown>>) =>
      Effect.forEach(jobs, (job, i) => Deferred.done(job.done, outcomes[i]!), { discard: true })

    const runBatch = (jobs: ReadonlyArray<Job>) =>
      Effect.gen(function*() {
        // a single write needs no savepoint to fail alone: its own transaction is rolled back
        if (jobs.length === 1) return yield* settle(jobs, [yield* Effect.exit(sql.withTransaction(jobs[0]!.write))])
        // BEGIN or COMMIT failed → every request fails with that cause
        const died = (cause: Cause.Cause<unknown>) => jobs.map(() => Exit.die(Cause.squash(cause)))
        const first = yield* Effect.exit(sql.withTransaction(gather(optimistic(jobs))))
        if (Exit.isSuccess(first)) return yield* settle(jobs, first.value)
        if (!Cause.isFailType(first.cause) || !(first.cause.error instanceof FailedWrite)) {
          return yield* settle(jobs, died(first.cause))
        }
        const second = yield* Effect.exit(sql.withTransaction(isolated(jobs)))
        yield* settle(jobs, Exit.isSuccess(second) ? second.value : died(second.cause))
      })

    yield* Effect.gen(function*() {
      const first = yield* Queue.take(queue)
      const rest = options.maxBatch > 1 ? yield* Queue.takeUpTo(queue, options.maxBatch - 1) : []
      const jobs = [first, ...rest]
      // a batch that died for an unforeseen reason: its requests not answered yet get its cause, and the
      // supervisor starts the committer again
      yield* Effect.onError(runBatch(jobs), (cause) => settle(jobs, jobs.map(() => Exit.failCause(cause))))
    }).pipe(
      (batch) => supervisor.forever("database", "group-commit", batch),
      Effect.interruptible,
      Effect.forkScoped
    )

    return {
      submit: <A, E>(write: Effect.Effect<A, E>) =>
        Effect.flatMap(Deferred.make<unknown, unknown>(), (done) =>
          Effect.zipRight(
            Queue.offer(queue, { write, done }),
            Deferred.await(done)
          )) as Effect.Effect<A, E | SqlError>
    } satisfies GroupCommit
  }) satisfies Effect.Effect<GroupCommit, never, SqlClient.SqlClient | Supervisor | Scope.Scope>

/** The optimistic attempt's signal that a write failed and the batch must run again, isolated. */
class FailedWrite extends Data.TaggedClass("FailedWrite") {}
