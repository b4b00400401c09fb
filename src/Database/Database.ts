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
import { stale } from "./PgliteStatements.js"
import { databaseTimeout } from "./Unavailable.js"

/**
 * Statement texts sent with parameters go under a name once seen twice: node-postgres then parses each once per
 * connection and the server keeps its plan, where unnamed it was parsed and planned at every call (the 50,000-agent
 * fleet: 58 s of planning against 125 s of execution; bench/README.md, "fleet"). At most 400 names, so texts built
 * per call cannot fill the server with statements. One the server no longer takes (its plan went stale when another
 * node migrated, 0A000, or a pooler lost it, 26000) is sent again unnamed and its text is named no more; inside a
 * transaction that error has already aborted it, and that one call fails (test/Database/NamedStatements.test.ts).
 */
const names = new Map<string, string | false>() // false: seen once
const refused = new Set<string>()
let made = 0
const nameOf = (text: string): string | undefined => {
  const name = names.get(text)
  if (typeof name === "string" || refused.has(text) || made >= 400) return name || undefined
  if (name === false) names.set(text, `shoal_${++made}`)
  else if (names.size < 4_000) names.set(text, false)
  return names.get(text) || undefined
}

/**
 * A pool client that gives up on its connection when a statement outlives `query_timeout`. node-postgres fails the
 * statement but keeps the connection, whose answer may never come (a hung server, a black-holed network): back in
 * the pool, every later statement would queue behind it and time out too, for good. Ended before the
 * pool takes it back, it is dropped, and the next statement opens a fresh connection. Statements go named (`nameOf`).
 */
class DeadlineClient extends Pg.Client {
  /** whether statements go named (`DATABASE_PREPARED_STATEMENTS`, default on) */
  protected naming = true

  /** statements sent and not yet answered: more than one when pipelined (a transaction's, src/Database/LazyBegin.ts) */
  private sent = 0

  /** whether the socket is corked until this tick's end */
  private corked = false

  override query(...given: Array<any>): any {
    // each statement timed from here to its answer (src/Metrics/Metrics.ts)
    const start = performance.now()
    this.sent++
    // statements issued in one tick (a pipeline: LazyBegin.pipelined) leave in one write, not one syscall each
    if (!this.corked) {
      const stream = this.connection.stream
      stream.cork()
      this.corked = true
      process.nextTick(() => {
        this.corked = false
        stream.uncork()
      })
    }
    const answered = (err: unknown) => {
      this.sent--
      observeStatement(start)
      // `end()` marks the client as ending at once (the pool drops an ending client when it comes back) and, with the
      // timed-out statement still active on the connection, destroys the socket rather than waiting for it
      if (err instanceof Error && err.message === "Query read timeout") void this.end().catch(() => {})
    }
    const [text, values] = given
    const name = this.naming && typeof text === "string" && Array.isArray(values) && values.length > 0
      ? nameOf(text)
      : undefined
    const args = name === undefined ? given : [{ name, text, values }, ...given.slice(2)]
    const last = args.length - 1
    if (typeof args[last] === "function") {
      const callback = args[last]
      args[last] = (err: unknown, res: unknown) => {
        if (name !== undefined && err && stale(err)) {
          names.delete(text)
          refused.add(text)
          // unnamed now, with its own callback; not behind statements pipelined after it (a COMMIT would have gone)
          if (this.sent === 1) {
            this.sent--
            return this.query(...given)
          }
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

/** `DATABASE_PREPARED_STATEMENTS=false`: every statement unnamed, for a pooler that cannot keep them. */
const preparedStatements = Config.boolean("DATABASE_PREPARED_STATEMENTS").pipe(Config.withDefault(true))

/**
 * A real PostgreSQL server through @effect/sql-pg, with deadlines (`DATABASE_TIMEOUT`): a connection, new or from
 * the pool, must come within it (`connectionTimeoutMillis`); the server cancels a statement that runs longer
 * (`statement_timeout`, the connection stays usable); and a statement the server does not answer at all fails a
 * second after that (`query_timeout`, its connection dropped). node-postgres' own timers are used rather than an
 * Effect timeout around statements: interrupting a statement in sql-pg waits for `pg_cancel_backend` on another
 * connection, which a hung server never answers, so the caller would wait past the deadline. A connection the
 * server closed is dropped by the pool and replaced on demand: when the server is back, so is the service.
 * Its transactions send what they hold for their COMMIT (an emit's events) with it, pipelined (CommitScript).
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
          // a transaction's statements known in advance go without waiting for each other's answer (LazyBegin)
          pipeline: true,
          Client: prepared ? DeadlineClient : class extends DeadlineClient {
            protected override naming = false
          },
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
