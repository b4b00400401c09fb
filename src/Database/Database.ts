import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Config, Duration, Effect, Layer, Option, Redacted } from "effect"
import Pg from "pg"
import { dbPool, observeStatement, poolIdle, poolTotal, poolWaiting, sampler } from "../Metrics/Metrics.js"
import * as CommitScript from "./CommitScript.js"
import { lockDataDir } from "./DataDirLock.js"
import { runMigrations } from "./Migrations.js"
import * as Pglite from "./PgliteClient.js"
import { databaseTimeout } from "./Unavailable.js"

/**
 * Statement texts sent with parameters, each under a name of its own once seen twice: node-postgres then parses it
 * once per connection and the server keeps its plan, where an unnamed statement is parsed and planned at every call.
 * In the fleet bench (50,000 agents over three processes) planning was 58 s of the server's time against 125 s of
 * execution (pg_stat_statements with track_planning; bench/README.md, "fleet"). At most MAX_NAMED names, so texts
 * built per call (an IN list of every length) cannot fill the server's memory with statements; such texts, and the
 * scripts (no parameters), go unnamed as before.
 */
const MAX_NAMED = 400
const names = new Map<string, string>()
const seen = new Set<string>()
// texts whose kept plan went stale: sent unnamed from then on
const refused = new Set<string>()
let made = 0

const nameOf = (text: string): string | undefined => {
  const name = names.get(text)
  if (name !== undefined || made >= MAX_NAMED || refused.has(text)) return name
  if (!seen.has(text)) {
    if (seen.size >= 10 * MAX_NAMED) seen.clear()
    seen.add(text)
    return undefined
  }
  const fresh = `shoal_${++made}`
  names.set(text, fresh)
  return fresh
}

/** A statement's query config with its name, when it has parameters and a name was given to its text. */
const withName = (args: Array<any>): Array<any> => {
  const [first, second] = args
  if (typeof first === "string" && Array.isArray(second) && second.length > 0) {
    const name = nameOf(first)
    return name === undefined ? args : [{ name, text: first, values: second }, ...args.slice(2)]
  }
  if (
    typeof first === "object" && first !== null && typeof first.text === "string" && first.name === undefined &&
    Array.isArray(first.values) && first.values.length > 0 && typeof first.submit !== "function"
  ) {
    const name = nameOf(first.text)
    return name === undefined ? args : [{ ...first, name }, ...args.slice(1)]
  }
  return args
}

// "cached plan must not change result type"; "prepared statement does not exist" (a pooler between us and the server
// handed the statement to a backend that never saw it)
const stale = (code: unknown) => code === "0A000" || code === "26000"

/**
 * A pool client that gives up on its connection when a statement outlives `query_timeout`. node-postgres fails the
 * statement but keeps the connection, whose answer may never come (a hung server, a black-holed network): back in
 * the pool, every later statement would queue behind it and time out too, for good. Ended before the
 * pool takes it back, it is dropped, and the next statement opens a fresh connection. Statements with parameters go
 * named (`withName`); one whose kept plan no longer fits its tables ("cached plan must not change result type",
 * another node migrated) is sent again unnamed, and its text is not named again. Inside a transaction that error has
 * already aborted it, so that one call fails as any failed statement in a transaction does (test/Database/
 * NamedStatements.test.ts).
 */
class DeadlineClient extends Pg.Client {
  /** whether statements go named (`DATABASE_PREPARED_STATEMENTS`, default on) */
  protected naming = true

  override query(...given: Array<any>): any {
    // each statement timed from here to its answer (src/Metrics/Metrics.ts)
    const start = performance.now()
    const answered = (err: unknown) => {
      observeStatement(start)
      // `end()` marks the client as ending at once (the pool drops an ending client when it comes back) and, with the
      // timed-out statement still active on the connection, destroys the socket rather than waiting for it
      if (err instanceof Error && err.message === "Query read timeout") void this.end().catch(() => {})
    }
    const args = this.naming ? withName(given) : given
    const named = args !== given ? (args[0] as { readonly name: string; readonly text: string }) : undefined
    const last = args.length - 1
    if (typeof args[last] === "function") {
      const callback = args[last]
      args[last] = (err: unknown, res: unknown) => {
        if (named !== undefined && stale((err as { code?: unknown } | null)?.code)) {
          names.delete(named.text)
          refused.add(named.text)
          return (Pg.Client.prototype.query as (...a: Array<any>) => any).apply(this, [...given.slice(0, -1), (
            e: unknown,
            r: unknown
          ) => {
            answered(e)
            callback(e, r)
          }])
        }
        answered(err)
        callback(err, res)
      }
    }
    const result = (Pg.Client.prototype.query as (...a: Array<any>) => any).apply(this, args)
    return result instanceof Promise
      ? result.then((res: unknown) => (answered(undefined), res), (err: unknown) => {
        answered(err)
        throw err
      })
      : result
  }
}

/** For a pooler that cannot keep named statements (PgBouncer before 1.21 in transaction mode). */
class UnnamedClient extends DeadlineClient {
  protected override naming = false
}

/** `DATABASE_PREPARED_STATEMENTS=false`: every statement unnamed, as before 380decd. */
const preparedStatements = Config.boolean("DATABASE_PREPARED_STATEMENTS").pipe(Config.withDefault(true))

/**
 * A real PostgreSQL server through @effect/sql-pg, with deadlines (`DATABASE_TIMEOUT`): a connection, new or from
 * the pool, must come within it (`connectionTimeoutMillis`); the server cancels a statement that runs longer
 * (`statement_timeout`, the connection stays usable); and a statement the server does not answer at all fails a
 * second after that (`query_timeout`, its connection dropped). node-postgres' own timers are used rather than an
 * Effect timeout around statements: interrupting a statement in sql-pg waits for `pg_cancel_backend` on another
 * connection, which a hung server never answers, so the caller would wait past the deadline. A connection the
 * server closed is dropped by the pool and replaced on demand: when the server is back, so is the service.
 * Its transactions send what they hold for their COMMIT (an emit's events) with it, in one script (CommitScript).
 */
export const layerPg = (url: Redacted.Redacted) =>
  Layer.unwrapEffect(Effect.map(Effect.zip(databaseTimeout, preparedStatements), ([deadline, prepared]) => {
    const ms = Option.match(deadline, { onNone: () => undefined, onSome: Duration.toMillis })
    const acquire = Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new Pg.Pool({
          connectionString: Redacted.value(url),
          max: 10,
          // an idle connection is kept 5 minutes, not node-postgres' 10 s: under bursty load the pool otherwise keeps
          // reopening them, each a new server process, slower than the deadline when starved (bench/README.md, "fleet")
          idleTimeoutMillis: 300_000,
          application_name: "shoal",
          keepAlive: true,
          Client: prepared ? DeadlineClient : UnnamedClient,
          ...(ms === undefined ? {} : {
            connectionTimeoutMillis: ms,
            statement_timeout: ms,
            query_timeout: ms + 1000
          })
        })
        // an idle connection the server drops is removed by the pool; without a listener it would crash the process
        pool.on("error", () => {})
        return pool
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    ).pipe(
      Effect.tap((pool) =>
        sampler(Effect.sync(() => {
          dbPool.unsafeUpdate(pool.totalCount, poolTotal)
          dbPool.unsafeUpdate(pool.idleCount, poolIdle)
          dbPool.unsafeUpdate(pool.waitingCount, poolWaiting)
        }))
      ),
      // as PgClient.layer does: a server that cannot be reached at start is a startup failure
      Effect.tap((pool) =>
        Effect.tryPromise({
          try: () => pool.query("SELECT 1"),
          catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
        })
      )
    )
    return CommitScript.layer(PgClient.layerFromPool({ acquire, applicationName: "shoal" }))
  }))

/** Embedded PGlite under `dir`, one process per directory. */
export const layerEmbedded = (dir: string) =>
  Pglite.layerFrom(Effect.zipRight(lockDataDir(dir), Pglite.open({ dataDir: dir })))

/** SqlClient from config: `DATABASE_URL` → server, else PGlite under `DATA_DIR` (default ./.data). */
export const layerFromConfig = Layer.unwrapEffect(
  Effect.gen(function*() {
    const url = yield* Config.option(Config.redacted("DATABASE_URL"))
    if (Option.isSome(url) && Redacted.value(url.value).length > 0) return layerPg(url.value)
    const dir = yield* Config.string("DATA_DIR").pipe(Config.withDefault("./.data"))
    return layerEmbedded(`${dir.replace(/\/$/, "")}/pg`)
  })
)

/** Runs the forward-only migrations once the client is up. */
export const layerMigrated = <E, R>(client: Layer.Layer<SqlClient.SqlClient, E, R>) =>
  Layer.effectDiscard(runMigrations.pipe(Effect.orDie)).pipe(Layer.provideMerge(client))

export const layer = layerMigrated(layerFromConfig)
