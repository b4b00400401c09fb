/**
 * A readonly array as a statement parameter (`${ids}::uuid[]`): the SQL client's argument type asks for a mutable
 * array, though it only reads it; this says so once instead of casting branded ids at every call.
 */
export const sqlArray = <A extends string | number>(values: ReadonlyArray<A>): Array<string | number> =>
  values as Array<A>

/** A time in epoch milliseconds as a statement parameter: ISO text, cast where it is used (`${iso(ms)}::timestamptz`). */
export const iso = (millis: number) => new Date(millis).toISOString()

/**
 * A value written into SQL text as a literal, for a statement sent without parameters (a simple-query script, see
 * CommitScript.ts): a string as an escape-string literal E'…' (quotes and backslashes doubled, so the reading
 * does not depend on standard_conforming_strings), a number only if finite, an array as ARRAY[…] (its element type
 * comes from the cast the statement puts after it), null as NULL. A NUL character, which no PostgreSQL text can
 * hold, is refused rather than cut.
 */
export const sqlLiteral = (value: unknown): string => {
  if (value === null || value === undefined) return "NULL"
  if (typeof value === "string") {
    if (value.includes("\u0000")) throw new Error("a NUL character cannot be written into SQL text")
    return `E'${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`
  }
  if (typeof value === "number" || typeof value === "bigint") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new Error(`not a finite number: ${value}`)
    return String(value)
  }
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE"
  if (value instanceof Date) return sqlLiteral(value.toISOString())
  if (Array.isArray(value)) return `ARRAY[${value.map(sqlLiteral).join(",")}]`
  throw new Error(`no SQL literal for ${typeof value}`)
}

/**
 * A compiled statement made ready to be filled with literals many times: each parameter that is one of `markers`
 * (by identity) becomes a slot for that argument, every other parameter is written in once as a literal.
 */
export interface LiteralTemplate {
  readonly pieces: ReadonlyArray<string>
  /** for each slot, the index of its argument */
  readonly args: ReadonlyArray<number>
}

export const literalTemplate = (
  [text, params]: readonly [string, ReadonlyArray<unknown>],
  markers: ReadonlyArray<unknown>
): LiteralTemplate => {
  const pieces: Array<string> = []
  const args: Array<number> = []
  let piece = ""
  let last = 0
  for (const m of text.matchAll(/\$(\d+)/g)) {
    const i = Number(m[1]) - 1
    if (i < 0 || i >= params.length) throw new Error(`no parameter $${m[1]}`)
    const arg = markers.indexOf(params[i])
    piece += text.slice(last, m.index)
    last = m.index + m[0].length
    if (arg < 0) piece += sqlLiteral(params[i])
    else {
      pieces.push(piece)
      args.push(arg)
      piece = ""
    }
  }
  pieces.push(piece + text.slice(last))
  return { pieces, args }
}

/** The template's text with `args` written in as literals. */
export const fillTemplate = (template: LiteralTemplate, args: ReadonlyArray<unknown>): string => {
  let text = template.pieces[0]!
  for (let i = 0; i < template.args.length; i++) {
    text += sqlLiteral(args[template.args[i]!]) + template.pieces[i + 1]!
  }
  return text
}

// the texts sent through inlineCached (a few statements of our repositories, one per shape), split once
const templates = new Map<string, LiteralTemplate>()

/**
 * A compiled statement (text with $1…$n, and its parameters) as one SQL text with the values written in as
 * literals. The statement's own text must hold no `$n` but its placeholders (our templates in repositories). A text
 * is split at its placeholders once, then each call only writes its values between the pieces.
 */
export const inlineCached = (text: string, params: ReadonlyArray<unknown>): string => {
  let template = templates.get(text)
  if (template === undefined) {
    const slots = params.map(() => ({}))
    template = literalTemplate([text, slots], slots)
    if (templates.size >= 64) templates.clear()
    templates.set(text, template)
  }
  return fillTemplate(template, params)
}
