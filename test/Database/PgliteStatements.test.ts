import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import * as Statements from "../../src/Database/PgliteStatements.js"

// the prepared-statement path must read and write every value exactly as PGlite's own `query` does
describe("PGlite prepared statements", () => {
  let db: PGlite
  let statements: ReturnType<typeof Statements.make>
  beforeAll(async () => {
    db = await PGlite.create()
    statements = Statements.make(db)
    await db.exec(`CREATE TABLE t (id serial PRIMARY KEY, u uuid, tags text[], at timestamptz, doc jsonb, ok boolean,
      raw bytea, n bigint, note text)`)
  })
  afterAll(() => db.close())

  it("writes and reads every kind of value as query does", async () => {
    const values = [
      "0b9f8a4e-1d2c-4e5f-9a8b-7c6d5e4f3a2b",
      ["a", "b,c", "d\"e", null],
      new Date("2026-01-02T03:04:05.678Z"),
      JSON.stringify({ k: [1, "x"] }),
      true,
      new Uint8Array([0, 1, 254, 255]),
      "9007199254740993",
      null
    ]
    const insert =
      `INSERT INTO t (u, tags, at, doc, ok, raw, n, note) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`
    const mine = await statements.run(insert, values, "object")
    const theirs = (await db.query<any>(insert, values)).rows
    expect(mine).toHaveLength(1)
    const { id: _a, ...a } = mine[0] as any
    const { id: _b, ...b } = theirs[0]
    expect(a).toEqual(b)
    expect(a.tags).toEqual(["a", "b,c", "d\"e", null])
    expect(a.doc).toEqual({ k: [1, "x"] })
    const arrays = await statements.run(`SELECT u, ok FROM t WHERE id = $1`, [(mine[0] as any).id], "array")
    expect(arrays).toEqual([[values[0], true]])
    // the second execution goes through the prepared statement
    expect(await statements.run(`SELECT u, ok FROM t WHERE id = $1`, [(mine[0] as any).id], "array")).toEqual(arrays)
  })

  it("long text, varchar and json values (sent in binary) arrive exactly as written", async () => {
    // past the length where text goes in binary; multi-byte characters and a surrogate pair included
    const long = "é,0b9f8a4e-1d2c-4e5f-9a8b-7c6d5e4f3a2b,ü🐟".repeat(2_000)
    const doc = JSON.stringify({ note: long, n: [1, 2, 3] })
    const [row] = await statements.run(
      `SELECT $1::text AS t, length($1::text) AS n, $2::varchar AS v, $3::json AS j, $3::json->>'note' AS note`,
      [long, long, doc],
      "object"
    ) as Array<any>
    expect(row.t).toBe(long)
    expect(row.n).toBe([...long].length)
    expect(row.v).toBe(long)
    expect(row.j).toEqual({ note: long, n: [1, 2, 3] })
    expect(row.note).toBe(long)
    // a short one stays text, as before
    expect(await statements.run(`SELECT $1::text AS t`, ["é🐟"], "array")).toEqual([["é🐟"]])
  })

  it("statements without rows, errors, and a table changed under a prepared statement", async () => {
    expect(await statements.run(`UPDATE t SET note = $1 WHERE id < 0`, ["x"], "object")).toEqual([])
    await expect(statements.run(`INSERT INTO t (id) VALUES ($1), ($1)`, [1_000], "object")).rejects.toMatchObject({
      code: "23505"
    })
    await expect(statements.run(`SELEC nothing`, [], "object")).rejects.toBeDefined()
    const read = `SELECT * FROM t ORDER BY id LIMIT $1`
    const before = await statements.run(read, [1], "object")
    await db.exec(`ALTER TABLE t ADD COLUMN extra text DEFAULT 'new'`)
    const after = await statements.run(read, [1], "object")
    expect(after[0]).toEqual({ ...(before[0] as object), extra: "new" })
  })
})
