import type { SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Effect, Either, Stream } from "effect"

/**
 * `statements` sent on one connection without waiting for each other's answers (pg's pipeline mode, on in
 * src/Database/Database.ts): one round trip for all, answered in order. Each has its own Sync, so one failing does
 * not stop the next from running; inside a transaction the ones after it fail too (the transaction is aborted), and
 * a COMMIT among them rolls back. All run to their answer (none interrupted mid-way: an interrupted statement sends
 * a cancel that could reach a later one); the first failure, if any, is the outcome.
 */
export const pipelined = <A>(
  statements: ReadonlyArray<Effect.Effect<A, SqlError.SqlError>>
): Effect.Effect<Array<A>, SqlError.SqlError> =>
  Effect.flatMap(Effect.all(statements, { concurrency: "unbounded", mode: "either" }), (answers) => {
    const failed = answers.find(Either.isLeft)
    return failed === undefined
      ? Effect.succeed(answers.map((a) => (a as Either.Right<SqlError.SqlError, A>).right))
      : Effect.fail(failed.left)
  })

/**
 * A reserved connection whose transaction's BEGIN has not been sent yet: it goes with the first statement, pipelined
 * (`pipelined`), so a transaction costs no round trip of its own for BEGIN. Statements started while the first is on
 * its way wait for it, so none can run ahead of the BEGIN.
 */
export interface LazyBegin extends Connection {
  /** Whether BEGIN was sent (or is on its way): only then is there a transaction to commit or roll back. */
  readonly begun: () => boolean
}

export const lazyBegin = (conn: Connection): LazyBegin => {
  let state: "idle" | "starting" | "begun" = "idle"
  // made by the first statement to wait (rarely any), opened once the first statement (with the BEGIN) has answered
  let started: Effect.Latch | undefined
  const begin = conn.executeUnprepared("BEGIN", [], undefined)

  /** `f` after BEGIN: pipelined with it if this is the first statement, else once BEGIN has gone before. */
  const run = <A>(f: Effect.Effect<A, SqlError.SqlError>) =>
    Effect.suspend(() => {
      if (state === "begun") return f
      if (state === "starting") return Effect.zipRight((started ??= Effect.unsafeMakeLatch(false)).await, f)
      state = "starting"
      return Effect.ensuring(
        Effect.map(pipelined<unknown>([begin, f]), (answers) => answers[1] as A),
        Effect.sync(() => {
          state = "begun"
          started?.unsafeOpen()
        })
      )
    })
  const ready = run(Effect.void)

  return {
    begun: () => state !== "idle",
    execute: (text, params, transformRows) => run(conn.execute(text, params, transformRows)),
    executeRaw: (text, params) => run(conn.executeRaw(text, params)),
    executeStream: (text, params, transformRows) =>
      Stream.unwrap(Effect.as(ready, conn.executeStream(text, params, transformRows))),
    executeValues: (text, params) => run(conn.executeValues(text, params)),
    executeUnprepared: (text, params, transformRows) => run(conn.executeUnprepared(text, params, transformRows))
  }
}
