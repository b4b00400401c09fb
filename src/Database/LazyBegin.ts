import type { SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Effect, Stream } from "effect"
import { inlineCached } from "./SqlArrays.js"

/**
 * A reserved connection whose transaction's BEGIN has not been sent yet: it goes with the first statement. A
 * statement that asks for it (`executeFirst`: one of our repositories' own templates) carries it in one
 * simple-query script, `BEGIN;` and the statement with its values written in as literals: one round trip less per
 * transaction (bench/README.md, "wallet"; without it and the COMMIT script, see CommitScript.ts for the figure).
 * Any other first statement is preceded by BEGIN on its own.
 * Statements started while the first is on its way wait for it, so none can run ahead of the BEGIN.
 */
export interface LazyBegin extends Connection {
  /** Whether BEGIN was sent (or is on its way): only then is there a transaction to commit or roll back. */
  readonly begun: () => boolean
  /**
   * `text` with its bound parameters; if it is the transaction's first statement, sent after `BEGIN;` in one
   * script with its values as literals (sqlLiteral: the text must hold no `$n` but its placeholders). A value that
   * has no literal falls back to BEGIN on its own, then the statement as it is.
   */
  readonly executeFirst: (
    text: string,
    params: ReadonlyArray<unknown>
  ) => Effect.Effect<ReadonlyArray<any>, SqlError.SqlError>
}

export const lazyBegin = (conn: Connection): LazyBegin => {
  let state: "idle" | "starting" | "begun" = "idle"
  // made by the first statement to wait (rarely any), opened once the first statement (with the BEGIN) has answered
  let started: Effect.Latch | undefined
  const begin = conn.executeUnprepared("BEGIN", [], undefined)

  /** `f(true)` if this is the first statement (it must send BEGIN), `f(false)` once BEGIN has gone before. */
  const run = <A>(f: (first: boolean) => Effect.Effect<A, SqlError.SqlError>) =>
    Effect.suspend(() => {
      if (state === "begun") return f(false)
      if (state === "starting") return Effect.zipRight((started ??= Effect.unsafeMakeLatch(false)).await, f(false))
      state = "starting"
      return Effect.ensuring(
        f(true),
        Effect.sync(() => {
          state = "begun"
          started?.unsafeOpen()
        })
      )
    })
  const ready = run((first) => (first ? Effect.asVoid(begin) : Effect.void))

  const withBegin = (text: string, params: ReadonlyArray<unknown>) => {
    let script: string
    try {
      script = `BEGIN;\n${inlineCached(text, params)}`
    } catch {
      return Effect.zipRight(begin, conn.execute(text, params, undefined))
    }
    // two statements: pg answers one array of rows per statement
    return Effect.map(conn.execute(script, [], undefined), (results) => results[1] as ReadonlyArray<any>)
  }

  return {
    begun: () => state !== "idle",
    executeFirst: (text, params) =>
      run((first) => (first ? withBegin(text, params) : conn.execute(text, params, undefined))),
    execute: (text, params, transformRows) => Effect.zipRight(ready, conn.execute(text, params, transformRows)),
    executeRaw: (text, params) => Effect.zipRight(ready, conn.executeRaw(text, params)),
    executeStream: (text, params, transformRows) =>
      Stream.unwrap(Effect.as(ready, conn.executeStream(text, params, transformRows))),
    executeValues: (text, params) => Effect.zipRight(ready, conn.executeValues(text, params)),
    executeUnprepared: (text, params, transformRows) =>
      Effect.zipRight(ready, conn.executeUnprepared(text, params, transformRows))
  }
}

/** `text` on a transaction's connection: with its BEGIN if the connection still holds one back (see LazyBegin). */
export const executeFirst = (conn: Connection, text: string, params: ReadonlyArray<unknown>) =>
  "executeFirst" in conn ? (conn as LazyBegin).executeFirst(text, params) : conn.execute(text, params, undefined)
