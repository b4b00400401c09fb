import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Scope } from "effect"
import { type LazyBegin, lazyBegin } from "./LazyBegin.js"

/**
 * A statement a transaction holds back to send with its COMMIT: SQL text with its values written in (sqlLiteral),
 * run after everything the transaction's body did, in the same simple-query script as the COMMIT.
 */
export interface AtCommit {
  /** A statement it needs before it, sent once however many held statements name it (the event-order lock). */
  readonly prelude?: string | undefined
  readonly text: string
  /** Just before the script goes. */
  readonly sending: () => void
  /** Once COMMIT has answered: the statement's rows. */
  readonly committed: (rows: ReadonlyArray<any>) => void
  /** The script failed or never answered: whether it committed is not known here. */
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
    const script = tx.begun() ? [] : ["BEGIN"]
    for (const s of held) if (s.prelude !== undefined && !script.includes(s.prelude)) script.push(s.prelude)
    const first = script.length
    for (const s of held) script.push(s.text)
    script.push("COMMIT")
    for (const s of held) s.sending()
    return conn.execute(script.join(";\n"), [], undefined).pipe(
      Effect.tapErrorCause(() => Effect.sync(() => held.forEach((s) => s.abandoned()))),
      // what is left (the script may have opened the transaction itself, and a failed statement in it made
      // PostgreSQL skip the rest, COMMIT included) is rolled back
      Effect.tapError(() => sendRollback),
      // several statements: pg answers one array of rows per statement
      Effect.map((results) => held.forEach((s, i) => s.committed(results[first + i] as ReadonlyArray<any>)))
    )
  })
  return {
    ...tx,
    atCommit: (statement) => {
      // a fiber that outlived its transaction: its statement would never be sent
      if (ended) throw new Error("a statement held for a COMMIT that has already gone")
      held.push(statement)
    },
    // with the held-back BEGIN when it is the first statement (LazyBegin.executeFirst): one round trip
    savepoint: (id) =>
      Effect.suspend(() => {
        marks[id] = held.length
        return Effect.asVoid(tx.executeFirst(`SAVEPOINT effect_sql_${id}`, []))
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
 * `client` (a server's) with transactions that hold statements for their COMMIT, sent with it in one script: what
 * the outbox holds there is an emit's insert after the event-order lock, so the lock is taken and released within
 * COMMIT's own round trip rather than held from the emit through the app's way back to COMMIT (see
 * src/Realtime/Outbox.ts). BEGIN is held back too, to go with the first statement (LazyBegin) or with the script.
 * A savepoint rolled back drops what was held since it was taken, with its writes; a body that fails sends nothing.
 * A failed COMMIT script is a defect, as a failed COMMIT is in `withTransaction`, after rolling back what is left.
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
