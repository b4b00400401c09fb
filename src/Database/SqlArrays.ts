/**
 * A readonly array as a statement parameter (`${ids}::uuid[]`): the SQL client's argument type asks for a mutable
 * array, though it only reads it; this says so once instead of casting branded ids at every call.
 */
export const sqlArray = <A extends string | number>(values: ReadonlyArray<A>): Array<string | number> =>
  values as Array<A>

/** A time in epoch milliseconds as a statement parameter: ISO text, cast where it is used (`${iso(ms)}::timestamptz`). */
export const iso = (millis: number) => new Date(millis).toISOString()
