/**
 * The one shape of `error.details` for an input a client must fix, and the one formatter that turns schema decode
 * issues into it (REST and MCP alike). `details` is always an object: `field` names the first field at fault (`""`
 * for the body as a whole) and `issues` lists every field with a sentence saying what it takes; a rule error (a
 * wave time off the hour, a handle taken) has the same `field`, `issues` when it has a sentence per field, and may
 * add keys of its own.
 */

/** One field at fault: its dotted path (`checklists.0.text`) and what it must be. */
export interface FieldIssue {
  readonly field: string
  readonly message: string
}

export interface FieldDetails {
  readonly field: string
  readonly issues?: ReadonlyArray<FieldIssue>
  readonly [key: string]: unknown
}

/** Details naming one field, for errors written by hand (`fieldDetails("cursor", "is not a cursor …")`). */
export const fieldDetails = (field: string, message: string, extra: Record<string, unknown> = {}): FieldDetails => ({
  field,
  issues: [{ field, message }],
  ...extra
})

/** An issue as `ParseResult.ArrayFormatter` gives it (and `HttpApiDecodeError.issues` carries it). */
export interface DecodeIssue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const expected = /^Expected (.+), actual (.+)$/s
// a literal as Effect prints it: a quoted string, a number, a boolean, null or undefined
const literal = /^("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null|undefined)$/
const primitives: Record<string, string> = {
  string: "must be a string",
  number: "must be a number",
  boolean: "must be true or false",
  bigint: "must be an integer",
  object: "must be an object",
  "{}": "must be an object"
}

const showLiteral = (l: string) => (l.startsWith("\"") ? JSON.parse(l) as string : l)

/** What a field must be, from its issues: every allowed value of an enum, never an internal schema name. */
const describe = (field: string, issues: ReadonlyArray<DecodeIssue>): string => {
  if (issues.some((i) => i._tag === "Missing")) return "is required"
  if (issues.some((i) => i._tag === "Unexpected")) return "is not a known field: remove it"
  // a custom message (a limit, a format) says it best; the first one wins
  const custom = issues.find((i) => !expected.test(i.message))
  if (custom !== undefined) return custom.message
  const parsed = issues.map((i) => expected.exec(i.message)!).map((m) => ({ want: m[1]!, actual: m[2]! }))
  // an optional or nullable field reports `undefined`/`null` as members: they are not what the client should send
  const wanted = parsed.filter((p) => p.want !== "undefined" && p.want !== "null")
  const wants = (wanted.length > 0 ? wanted : parsed).map((p) => p.want)
  const actual = parsed[0]!.actual
  if (wants.every((w) => literal.test(w))) {
    const values = [...new Set(wants.map(showLiteral))]
    return values.length === 1 ? `must be ${values[0]}` : `must be one of ${values.join(", ")}`
  }
  const first = wants.find((w) => !literal.test(w))!
  if (primitives[first] !== undefined) return primitives[first]
  // a refinement's own description: "a Universally Unique Identifier", "an integer"
  if (/^an? /.test(first)) return `must be ${first}`
  if (/^(ReadonlyArray|Array)<|^readonly \[/.test(first)) return "must be an array"
  // a schema's name or structure (NewProject, { readonly title: … }): say what the client sent instead
  if (field === "" && actual === "null") return "must be a JSON object, not null"
  if (actual.startsWith("[")) return "must be an object, not an array"
  return "must be an object"
}

const sentence = (field: string, message: string) =>
  field === ""
    ? `the request body ${message}`
    // a custom message may name its field already ("limit is an integer from 1 to 1000")
    : message.startsWith(`${field.split(".").pop()} `)
    ? message
    : `${field} ${message}`

/** The error message and `details` for a failed decode, fields in the order the schema reported them. */
export const formatDecodeIssues = (
  issues: ReadonlyArray<DecodeIssue>
): { readonly message: string; readonly details: FieldDetails } => {
  const byField = new Map<string, Array<DecodeIssue>>()
  for (const i of issues) {
    const field = i.path.map(String).join(".")
    const list = byField.get(field)
    if (list === undefined) byField.set(field, [i])
    else list.push(i)
  }
  const all = [...byField.entries()].map(([field, list]) => ({ field, message: describe(field, list) }))
  // a union's "must be an object" for a field whose members went on to report deeper fields says nothing more
  const fields = all.filter((f) =>
    !(f.message === "must be an object" && all.some((o) => o !== f && o.field.startsWith(`${f.field}.`)))
  )
  if (fields.length === 0) return { message: "the request is invalid", details: { field: "", issues: [] } }
  const shown = fields.slice(0, 3).map((f) => sentence(f.field, f.message))
  const more = fields.length > 3 ? ` (and ${fields.length - 3} more: see details)` : ""
  return {
    message: shown.join("; ") + more,
    details: { field: fields[0]!.field, issues: fields.map((f) => ({ field: f.field, message: f.message })) }
  }
}
