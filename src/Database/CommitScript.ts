import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Scope } from "effect"
import { type LazyBegin, lazyBegin, pipelined } from "./LazyBegin.js"

/**
 * A statement a transaction holds back to send with its COMMIT: run after everything the transaction's body did,
 * pipelined with the COMMIT (one round trip).
 */
export interface AtCommit {
  /** A statement it needs before it, sent once however many held statements name it (the event-order lock). */
  readonly prelude?: string | undefined
  /** its text and bound values (a compiled statement) */
  readonly statement: readonly [string, ReadonlyArray<unknown>]
  /** Just before the COMMIT goes. */
  readonly sending: () => void
  /** Once COMMIT has answered: the statement's rows. */
  readonly committed: (rows: ReadonlyArray<any>) => void
  /** The COMMIT failed or never answered: whether it committed is not known here. */
  readonly abandoned: () => void
}

/** A server transaction's connection: its BEGIN held back (LazyBegin), and statements held for its COMMIT. */
export interface Holding extends LazyBegin {
  /** Holds `statement` for the COMMIT; dropped if the savepoint it was held in rolls back. */
  readonly atCommit: (statement: AtCommit) => void
}

/** The transaction connection as a `Holding` one, if it is (a server's; PGlite's transactions hold nothing). */
export const holding = (conn: Connection): Holding | undefined => "atCommit" in conn ? conn as Holding : undefined

interface Transaction extends Holding {
  readonly savepoint: (id: number) => Effect.Effect<void, SqlError>
  readonly rollbackSavepoint: (id: number) => Effect.Effect<void, SqlError>
  readonly commit: Effect.Effect<void, SqlError>
  readonly rollback: Effect.Effect<void, SqlError>
}

const transaction = (conn: Connection): Transaction => {
  const tx = lazyBegin(conn)
  const held: Array<AtCommit> = []
  // the number of statements held when each savepoint (by depth) was taken: what its rollback keeps
  const marks: Array<number> = []
  let ended = false
  const sendRollback = conn.executeUnprepared("ROLLBACK", [], undefined)
  // no BEGIN sent (the body failed before its first statement): no transaction to roll back
  const rollback = Effect.suspend(() => {
    ended = true
    return tx.begun() ? sendRollback : Effect.void
  })
  const commit = Effect.suspend(() => {
    ended = true
    if (held.length === 0) return tx.begun() ? conn.executeUnprepared("COMMIT", [], undefined) : Effect.void
    const plain = tx.begun() ? [] : ["BEGIN"]
    for (const s of held) if (s.prelude !== undefined && !plain.includes(s.prelude)) plain.push(s.prelude)
    for (const s of held) s.sending()
    return pipelined<ReadonlyArray<any>>([
      ...plain.map((text) => conn.executeUnprepared(text, [], undefined)),
      ...held.map(({ statement: [text, params] }) => conn.execute(text, params as Array<any>, undefined)),
      conn.executeUnprepared("COMMIT", [], undefined)
    ]).pipe(
      Effect.tapErrorCause(() => Effect.sync(() => held.forEach((s) => s.abandoned()))),
      // what is left (the pipeline may have opened the transaction itself; after a failed statement in it the
      // COMMIT rolled back) is rolled back
      Effect.tapError(() => sendRollback),
      Effect.map((answers) => held.forEach((s, i) => s.committed(answers[plain.length + i]!)))
    )
  })
  return {
    ...tx,
    atCommit: (statement) => {
      // a fiber that outlived its transaction: its statement would never be sent
      if (ended) throw new Error("a statement held for a COMMIT that has already gone")
      held.push(statement)
    },
    // with the held-back BEGIN when it is the first statement (LazyBegin): one round trip
    savepoint: (id) =>
      Effect.suspend(() => {
        marks[id] = held.length
        return Effect.asVoid(tx.executeUnprepared(`SAVEPOINT effect_sql_${id}`, [], undefined))
      }),
    rollbackSavepoint: (id) =>
      Effect.suspend(() => {
        held.length = marks[id] ?? held.length
        return Effect.asVoid(tx.executeUnprepared(`ROLLBACK TO SAVEPOINT effect_sql_${id}`, [], undefined))
      }),
    commit,
    rollback
  }
}

/**
 * `client` (a server's) with transactions that hold statements for their COMMIT, pipelined with it: what
 * the outbox holds there is an emit's insert after the event-order lock, so the lock is taken and released within
 * COMMIT's own round trip rather than held from the emit through the app's way back to COMMIT (see
 * src/Realtime/Outbox.ts). BEGIN is held back too, to go with the first statement (LazyBegin) or with the COMMIT.
 * A savepoint rolled back drops what was held since it was taken, with its writes; a body that fails sends nothing.
 * A failed COMMIT pipeline is a defect, as a failed COMMIT is in `withTransaction`, after rolling back what is left.
 * Why: two round trips with the row locks held, not four (BEGIN, move, events, COMMIT), took the wallet bench on a
 * server to 0.31-0.41x of the direct SQL, from 0.49-0.72x, at the same CPU per transfer.
 */
export const make = (client: SqlClient.SqlClient): SqlClient.SqlClient => {
  // every connection the hooks get is one `acquireConnection` made (the tag's value, at any depth)
  const tx = (conn: Connection) => conn as Transaction
  const withTransaction = SqlClient.makeWithTransaction({
    transactionTag: SqlClient.TransactionConnection,
    spanAttributes: [["db.system.name", "postgresql"]],
    acquireConnection: Effect.flatMap(
      Scope.make(),
      (scope) => Effect.map(Scope.extend(client.reserve, scope), (conn) => [scope, transaction(conn)] as const)
    ),
    begin: () => Effect.void,
    savepoint: (conn, id) => tx(conn).savepoint(id),
    commit: (conn) => tx(conn).commit,
    rollback: (conn) => tx(conn).rollback,
    rollbackSavepoint: (conn, id) => tx(conn).rollbackSavepoint(id)
  })
  // the same statement builder and reserve, as @effect/sql's own withoutTransforms copies a client
  const sql = Object.assign((...args: Array<any>) => (client as any)(...args), client, { withTransaction })
  ;(sql as any).safe = sql
  return sql as unknown as SqlClient.SqlClient
}

/** `pg`'s layer, its SqlClient made by `make` (PgClient itself, for LISTEN, as it is). */
export const layer = <E, R>(pg: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E, R>) =>
  Layer.effectContext(
    Effect.map(PgClient.PgClient, (client) =>
      Context.make(PgClient.PgClient, client).pipe(Context.add(SqlClient.SqlClient, make(client))))
  ).pipe(Layer.provide(pg))
