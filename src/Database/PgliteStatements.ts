import { parse, type PGlite, protocol } from "@electric-sql/pglite"

const S = protocol.serialize
// statement texts are the app's templates; a text built per call (an IN list of every length) could grow this
const MAX_PREPARED = 2_000

interface Prepared {
  readonly name: string
  readonly types: ReadonlyArray<number>
}

type Serializer = (value: unknown) => string

// text, varchar and json: their binary format is the text's UTF-8 bytes, as their text format is
const TEXT_TYPES = new Set([25, 1043, 114])
// past this, a text value goes in binary: pg-protocol's writer walks a string in JavaScript twice (its UTF-8 length,
// then again for the parameter's length) before encoding it, ~10 ms for the 370 KB recipient list of a 10,000-socket
// fan-out (bench/README.md, fanout); Buffer.from encodes it natively
const BINARY_FROM = 16 * 1024

/**
 * "cached plan must not change result type" (a table changed under the statement) and "prepared statement does not
 * exist": a named statement the database no longer takes, sent again (here prepared again; on a server unnamed).
 */
export const stale = (e: unknown) => {
  const code = (e as { code?: unknown }).code
  return code === "0A000" || code === "26000"
}

/**
 * Named prepared statements for PGlite, one protocol exchange per execution. `PGlite.query` parses, describes,
 * binds, describes and executes in six calls into the WebAssembly module and plans the statement every time; here
 * a statement is parsed and described once (its parameter types choose PGlite's own serializers, so values are
 * written exactly as `query` writes them) and each execution is one Bind/Describe/Execute/Sync buffer. Measured on
 * a keyed SELECT: 373 µs → 213 µs. Callers serialize access (the client's FIFO lock), as with `query`.
 */
export const make = (db: PGlite) => {
  const prepared = new Map<string, Prepared>()
  const serializers = (db as unknown as { serializers: Record<number, Serializer> }).serializers
  const parsers = (db as unknown as { parsers: Record<number, (value: string, typeId?: number) => unknown> }).parsers
  let counter = 0

  const prepare = async (text: string): Promise<Prepared> => {
    const name = `shoal_${++counter}`
    const { messages } = await db.execProtocol(
      Buffer.concat([S.parse({ name, text, types: [] }), S.describe({ type: "S", name }), S.sync()]),
      { syncToFs: false }
    )
    const description = messages.find((m) => m.name === "parameterDescription") as
      | { readonly dataTypeIDs: ReadonlyArray<number> }
      | undefined
    const statement = { name, types: description?.dataTypeIDs ?? [] }
    prepared.set(text, statement)
    return statement
  }

  const execute = async (statement: Prepared, params: ReadonlyArray<unknown>, rowMode: "array" | "object") => {
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null
      const type = statement.types[i]!
      const serialize = serializers[type]
      const text = serialize ? serialize(value) : String(value)
      return text.length >= BINARY_FROM && TEXT_TYPES.has(type) ? Buffer.from(text, "utf8") : text
    })
    const { messages } = await db.execProtocol(
      Buffer.concat([S.bind({ statement: statement.name, values }), S.describe({ type: "P" }), S.execute({}), S.sync()])
    )
    return parse.parseResults(messages, parsers, rowMode === "array" ? { rowMode: "array" } : {})[0]?.rows ?? []
  }

  /** The rows of one statement (objects, or arrays in column order). */
  const run = async (text: string, params: ReadonlyArray<unknown>, rowMode: "array" | "object") => {
    const known = prepared.get(text)
    if (known === undefined && prepared.size >= MAX_PREPARED) {
      const result = await db.query<any>(text, params as Array<unknown>, rowMode === "array" ? { rowMode } : {})
      return result.rows
    }
    try {
      return await execute(known ?? await prepare(text), params, rowMode)
    } catch (e) {
      if (known === undefined || !stale(e)) throw e
      prepared.delete(text)
      return execute(await prepare(text), params, rowMode)
    }
  }

  return { run } as const
}
