/**
 * Fields shared by projects, tasks and comments: deadlines as agents write them, the people a record names, and
 * attribution (`requested_by`) of a write made on someone's behalf.
 */
import { ParseResult, Schema } from "effect"
import { limited } from "./Fields.js"
import { Handle, UserId } from "./Ids.js"

const dateOnly = /^\d{4}-\d{2}-\d{2}$/
const dateTime = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?$/i

/**
 * The instants every date field takes: years 0001 to 9999 in UTC, once a zone is applied. Past them an ISO string
 * needs a sign and six digits (`+010000-…`), which the databases refuse or read otherwise, and wave ids break.
 */
export const MIN_INSTANT = Date.parse("0001-01-01T00:00:00Z")
export const MAX_INSTANT = Date.parse("9999-12-31T23:59:59.999Z")
const inRange = (ms: number) => ms >= MIN_INSTANT && ms <= MAX_INSTANT

/** The end of a window (a day, a range of hours) that may run past the last instant: the last instant then. */
export const capInstant = (ms: number) => Math.min(ms, MAX_INSTANT)

/** A date-time as given (zone optional, UTC when absent) → its instant; `undefined` when it is not one. */
export const parseInstant = (s: string): Date | undefined => {
  const m = dateTime.exec(s.trim())
  if (m === null) return undefined
  const zone = m[3] === undefined ? "Z" : m[3].toUpperCase() === "Z" ? "Z" : m[3]
  const d = new Date(`${m[1]}T${m[2]}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`)
  return Number.isNaN(d.getTime()) || !inRange(d.getTime()) ? undefined : d
}

/** A calendar date `YYYY-MM-DD` from 0001-01-01 to 9999-12-31. */
export const validDate = (s: string) => {
  if (!dateOnly.test(s)) return false
  const d = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && inRange(d.getTime()) && d.toISOString().slice(0, 10) === s
}

/**
 * A deadline: one format out, an ISO 8601 date-time in UTC (`2026-12-01T00:00:00.000Z`). In, a date-time with or
 * without a zone (normalised to UTC, a missing zone read as UTC) or a date (`2026-12-01`, midnight UTC). Anything
 * else is a 400.
 */
export const Deadline = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (s, _, ast) => {
    const t = s.trim()
    if (validDate(t)) return ParseResult.succeed(`${t}T00:00:00.000Z`)
    const d = parseInstant(t)
    return d === undefined
      ? ParseResult.fail(
        new ParseResult.Type(ast, s, "must be a date (YYYY-MM-DD) or an ISO 8601 date-time, in the years 0001 to 9999")
      )
      : ParseResult.succeed(d.toISOString())
  },
  encode: ParseResult.succeed
}).annotations({
  identifier: "Deadline",
  description: "an ISO 8601 date-time (without a zone it is read as UTC) or a date (YYYY-MM-DD, midnight UTC); " +
    "answered as a date-time in UTC",
  examples: ["2026-12-01", "2026-12-01T17:00:00Z"]
})

/** An ISO 8601 date-time (zone optional, UTC when absent), as an instant in ISO form. */
export const DateTimeInput = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (s, _, ast) => {
    const d = parseInstant(s)
    return d === undefined
      ? ParseResult.fail(
        new ParseResult.Type(
          ast,
          s,
          "must be an ISO 8601 date-time in the years 0001 to 9999 (UTC), e.g. 2026-12-01T17:00Z"
        )
      )
      : ParseResult.succeed(d.toISOString())
  },
  encode: ParseResult.succeed
}).annotations({ identifier: "DateTimeInput", description: "an ISO 8601 date-time; UTC when it has no zone" })

/** A user as records name them (`assigned_to`, `requested_by`). */
export class Person extends Schema.Class<Person>("Person")({
  id: UserId,
  display_name: Schema.String,
  handle: Handle
}) {}

/** `requested_by` (a handle or a user id) and `requested_by_id`: who asked for this write. */
export const AttributionFields = {
  requested_by: Schema.optional(
    limited(64, 1).annotations({
      description: "the handle or user id of whoever asked for this change (audit trail)"
    })
  ),
  requested_by_id: Schema.optional(
    limited(64, 1).annotations({
      description: "the user id (or handle) of whoever asked for this change"
    })
  )
}

/** Present on a response when `requested_by` was given but names nobody: the write succeeded without the link. */
export const Warning = Schema.optional(Schema.String.annotations({
  description: "set when `requested_by` could not be resolved: the write succeeded, the audit trail is not linked"
}))

export const Title = Schema.Trim.pipe(Schema.compose(limited(300, 1)))
export const Description = limited(20_000)
export const CommentContent = Schema.Trim.pipe(Schema.compose(limited(10_000, 1)))
export const Skills = Schema.Array(limited(100, 1)).pipe(
  Schema.maxItems(50, { message: () => "at most 50 skills" })
)
