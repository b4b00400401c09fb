import * as Reactivity from "@effect/experimental/Reactivity"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { PGlite } from "@electric-sql/pglite"
import { Chunk, Context, Effect, Layer, Option, type Scope, Stream } from "effect"
import { dbPool, poolTotal, poolWaiting, sampler, timeStatement } from "../Metrics/Metrics.js"
import { FifoLock } from "./FifoLock.js"
import { initialiseIfNew, startParams } from "./PgliteSettings.js"
import * as Statements from "./PgliteStatements.js"
import { databaseTimeout, deadlineError } from "./Unavailable.js"

/** The embedded PGlite instance and its statement lock, for code that needs more than SqlClient (LISTEN). */
export class Pglite extends Context.Tag("Database/Pglite")<Pglite, {
  readonly db: PGlite
  readonly lock: FifoLock
}>() {}

// int8 and numeric come back as strings, as node-postgres gives them, so one schema layer decodes both
const parsers = { 20: (v: string) => v, 1700: (v: string) => v }

/** Opens PGlite on `dataDir` (a new one initialised in a child process first), or in memory. */
export const open = (options: { readonly dataDir?: string | undefined; readonly loadDataDir?: Blob | undefined }) =>
  Effect.acquireRelease(
    Effect.flatMap(
      options.dataDir && !options.loadDataDir ? initialiseIfNew(options.dataDir) : Effect.succeed(undefined),
      (pgliteWasmModule) =>
        Effect.tryPromise({
          try: () =>
            PGlite.create({
              ...(options.dataDir ? { dataDir: options.dataDir } : {}),
              ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
              ...(pgliteWasmModule ? { pgliteWasmModule } : {}),
              parsers,
              startParams
            }),
          catch: (cause) => new SqlError({ cause, message: "PGlite: failed to open the database" })
        })
    ),
    (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
  )

// PGlite resolves in microtasks; without a macrotask hop a query loop starves timers and sockets
const yieldToLoop = Effect.async<void>((resume) => {
  const t = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(t))
})

// a transaction's own statements (what @effect/sql's withTransaction sends, parameterless): one prepared exchange
// each instead of `exec`'s simple query, which cost about twice as much (bench/README.md, "writes")
const transactionControl = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT \w+|ROLLBACK TO SAVEPOINT \w+|RELEASE SAVEPOINT \w+)$/

const makeConnection = (db: PGlite): Connection => {
  const statements = Statements.make(db)
  const run = <A>(f: () => Promise<A>) =>
    Effect.zipRight(
      yieldToLoop,
      // timed once it runs, after the lock and the hop (src/Metrics/Metrics.ts)
      Effect.tryPromise({
        try: () => timeStatement(f),
        catch: (cause) =>
          new SqlError({ cause, message: cause instanceof Error ? cause.message : "PGlite query failed" })
      })
    )
  const rows = (sql: string, params: ReadonlyArray<unknown>) =>
    run(() => statements.run(sql, params, "object") as Promise<Array<any>>)
  const execute: Connection["execute"] = (sql, params, transform) =>
    transform ? Effect.map(rows(sql, params), transform) : rows(sql, params)
  return {
    execute,
    executeRaw: (sql, params) => run(() => db.query(sql, params as Array<unknown>)),
    executeValues: (sql, params) => run(() => statements.run(sql, params, "array") as Promise<Array<Array<unknown>>>),
    executeUnprepared: (sql, params, transform) =>
      params.length > 0 || transactionControl.test(sql)
        ? execute(sql, params, transform)
        // parameterless scripts (migrations) may hold several statements
        : run(() => db.exec(sql)).pipe(
          Effect.map((results) => results.at(-1)?.rows ?? []),
          Effect.map((r) => transform ? transform(r as Array<any>) : r)
        ),
    executeStream: (sql, params, transform) =>
      Stream.fromIterableEffect(execute(sql, params, transform)).pipe(Stream.mapChunks((c) => Chunk.fromIterable(c)))
  }
}

/**
 * SqlClient over one PGlite session. One statement or one transaction at a time: a transaction holds the
 * FIFO lock to its end, so other fibers queue behind it instead of interleaving into it. With a `deadline`
 * (`DATABASE_TIMEOUT`), a statement (or transaction) that waits longer than that for the lock fails with a SqlError:
 * the database is as good as unavailable to it, and the request answers 503 rather than hanging. A statement that
 * has the lock runs to its end: PGlite cannot cancel one.
 */
export const layerFrom = <E>(acquire: Effect.Effect<PGlite, E, Scope.Scope>) =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const db = yield* acquire
      const lock = new FifoLock()
      const locked = Option.match(yield* databaseTimeout, {
        onNone: () => lock.scoped,
        // acquireRelease runs its acquisition uninterruptibly: the wait itself is made interruptible for the deadline
        // (the lock hands itself on if it was granted in the same tick)
        onSome: (duration) =>
          Effect.acquireRelease(
            Effect.timeoutFail(Effect.interruptible(lock.acquire), {
              duration,
              onTimeout: () => deadlineError("waiting for the embedded database", duration)
            }),
            () => Effect.sync(() => lock.release())
          )
      })
      const client = yield* SqlClient.make({
        acquirer: Effect.as(locked, makeConnection(db)),
        compiler: makeCompiler(),
        spanAttributes: [["db.system", "postgresql"], ["db.name", "pglite"]]
      })
      // one session: the "pool" is one connection, and the lock's queue is who waits for it
      yield* sampler(Effect.sync(() => {
        dbPool.unsafeUpdate(1, poolTotal)
        dbPool.unsafeUpdate(lock.pending, poolWaiting)
      }))
      return Context.make(SqlClient.SqlClient, client).pipe(Context.add(Pglite, { db, lock }))
    })
  ).pipe(Layer.provide(Reactivity.layer))
