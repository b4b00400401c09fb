import { Schema } from "effect"

/** Field limits (README "Limits"): over-long input is refused, never truncated. */
export const limited = (max: number, min = 0) =>
  Schema.String.pipe(
    Schema.minLength(min, { message: () => min === 1 ? "must not be empty" : `must be at least ${min} characters` }),
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` })
  )

export const DisplayName = Schema.Trim.pipe(Schema.compose(limited(100, 1)))
export const Bio = limited(2_000)

const isHttpUrl = (s: string) => {
  try {
    const u = new URL(s)
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0
  } catch {
    return false
  }
}

export const HttpUrl = Schema.String.pipe(
  Schema.maxLength(2_048, { message: () => "a URL is at most 2048 characters" }),
  Schema.filter(isHttpUrl, { message: () => "must be an http(s) URL" }),
  Schema.annotations({
    identifier: "HttpUrl",
    jsonSchema: { format: "uri" },
    // property tests: generate URLs rather than filter random strings (which almost never pass)
    arbitrary: () => (fc) => fc.webUrl({ validSchemes: ["http", "https"] }).filter((u) => u.length <= 2_048)
  })
)

export const Email = Schema.String.pipe(
  Schema.maxLength(320),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an e-mail address" })
)

/** ISO 8601 timestamp as it goes on the wire. */
export const Timestamp = Schema.String.annotations({ jsonSchema: { format: "date-time" } })

/**
 * An integer in the query string (`?limit=100`): decoded from text, documented as the integer it is (with its
 * bounds), so generated clients take a number.
 */
export const IntParam = (options: {
  readonly min: number
  readonly max?: number
  readonly message: string
  readonly description: string
}) => {
  const message = { message: () => options.message }
  const atLeast = Schema.NumberFromString.pipe(Schema.int(message), Schema.greaterThanOrEqualTo(options.min, message))
  return (options.max === undefined ? atLeast : atLeast.pipe(Schema.lessThanOrEqualTo(options.max, message)))
    .annotations({
      // the whole JSON Schema (it replaces the generated "a string to be decoded into a number")
      jsonSchema: {
        type: "integer",
        minimum: options.min,
        ...(options.max !== undefined ? { maximum: options.max } : {}),
        description: options.description
      }
    })
}

export const Success = Schema.Literal("success")

/**
 * The payload of a request whose fields are all optional (CONTRACT "Request conventions"): an empty body, `{}`,
 * `null` or the fields, without a Content-Type. The server reads an empty body as `{}`; `null` decodes to `{}` here,
 * so handlers see one shape, and the OpenAPI document marks the request body optional (`OpenApiDoc`).
 */
export const optionalBody = <A extends object, I, R>(schema: Schema.Schema<A, I, R>) =>
  Schema.transform(Schema.NullOr(schema), Schema.typeSchema(schema), {
    strict: true,
    decode: (v) => v ?? ({} as A),
    encode: (v) => v
  }).annotations({ parseOptions: { onExcessProperty: "error", errors: "all" } })
