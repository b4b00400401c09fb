import { Schema } from "effect"

/**
 * A timestamptz column as the API shows it (ISO 8601, UTC): the driver's Date, formatted in JS. Formatting in SQL
 * (to_char) cost the embedded database more than the rest of a 50-task page.
 */
export const IsoFromDate = Schema.transform(Schema.DateFromSelf, Schema.String, {
  strict: true,
  decode: (d) => d.toISOString(),
  encode: (s) => new Date(s)
})
