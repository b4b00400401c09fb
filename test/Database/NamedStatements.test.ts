import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted } from "effect"
import * as Database from "../../src/Database/Database.js"

/**
 * On a PostgreSQL server a statement with parameters goes under a name once its text has been seen twice, so the
 * server parses and plans it once per connection (src/Database/Database.ts). A kept plan that no longer fits its
 * table (a column added by another node's migration) is sent again unnamed: outside a transaction the caller never
 * sees the error; inside one, the transaction it aborted fails once.
 */
const url = process.env.DATABASE_URL

describe.skipIf(!url)("named statements on a server", () => {
  it.effect("a repeated statement is prepared once per connection; a stale plan is sent again unnamed", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const table = sql(`named_${process.pid}_${Date.now()}`)
      yield* sql`CREATE TABLE ${table} (a int)`
      try {
        yield* sql`INSERT INTO ${table} (a) VALUES (${1}), (${2})`
        // one at a time, so the pool hands back the same connection (its last idle one) each time
        const select = (a: number) => sql`SELECT * FROM ${table} WHERE a = ${a}`
        for (let i = 0; i < 3; i++) expect(yield* select(1)).toEqual([{ a: 1 }])
        const prepared = yield* sql<{ name: string }>`
          SELECT name FROM pg_prepared_statements WHERE statement LIKE ${`%${table.value}%WHERE a = $1%`}`
        expect(prepared.map((p) => p.name)).toEqual([expect.stringMatching(/^shoal_\d+$/)])
        // the kept plan's result has one column; the table now has two: sent again unnamed, the caller sees rows
        yield* sql`ALTER TABLE ${table} ADD COLUMN b int`
        expect(yield* select(1)).toEqual([{ a: 1, b: null }])
        expect(yield* select(2)).toEqual([{ a: 2, b: null }])
        // inside a transaction the failed statement has aborted it: that one call fails (once per text and
        // process: the text goes unnamed from then on), as any statement failing in a transaction does
        const other = (a: number) => sql`SELECT * FROM ${table} WHERE b IS NULL AND a = ${a}`
        for (let i = 0; i < 3; i++) expect(yield* other(1)).toEqual([{ a: 1, b: null }])
        yield* sql`ALTER TABLE ${table} ADD COLUMN c int`
        const failed = yield* Effect.either(sql.withTransaction(other(1)))
        expect(failed._tag).toBe("Left")
        expect(yield* sql.withTransaction(other(1))).toEqual([{ a: 1, b: null, c: null }])
      } finally {
        yield* sql`DROP TABLE ${table}`
      }
    }).pipe(Effect.provide(Database.layerPg(Redacted.make(url!))), Effect.scoped))

  it.effect("DATABASE_PREPARED_STATEMENTS=false: nothing is prepared (a pooler that cannot keep them)", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const table = sql(`unnamed_${process.pid}_${Date.now()}`)
      yield* sql`CREATE TABLE ${table} (a int)`
      try {
        for (let i = 0; i < 3; i++) expect(yield* sql`SELECT * FROM ${table} WHERE a = ${1}`).toEqual([])
        expect(yield* sql`SELECT name FROM pg_prepared_statements`).toEqual([])
      } finally {
        yield* sql`DROP TABLE ${table}`
      }
    }).pipe(
      Effect.provide(Database.layerPg(Redacted.make(url!))),
      Effect.scoped,
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DATABASE_PREPARED_STATEMENTS", "false"]])))
    ))
})
