import { ErrorDetails, Errors } from "@shoal/domain"
import { Effect } from "effect"

/**
 * A page cursor names the last row of the previous page by its (created_at, id): the next page is everything
 * strictly past it in the list's order, so rows added meanwhile neither repeat nor shift the page. The feed, gigs,
 * messages, notifications and task lists all page this way (`cursor` in, `next_cursor` out, null at the end).
 */
export interface Position {
  readonly createdAt: string
  readonly id: string
}

/** Where a page starts: after the row (created_at, id) of a cursor, or at an offset (legacy `page`). */
export interface PageStart {
  readonly after: Position | undefined
  readonly offset: number
  readonly limit: number
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const invalid = () =>
  new Errors.InvalidRequest({
    message: "cursor: not a cursor this server gave out; pass next_cursor as it was received",
    details: ErrorDetails.fieldDetails("cursor", "not a cursor this server gave out")
  })

/** `cursor` as a query parameter, decoded (a cursor this server did not give out is a 400 naming `cursor`). */
export const cursorParam = (cursor: string | undefined): Effect.Effect<Position | undefined, Errors.InvalidRequest> => {
  if (cursor === undefined) return Effect.succeed(undefined)
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  const [createdAt, id, ...rest] = text.split("|")
  if (createdAt === undefined || id === undefined || rest.length > 0 || !uuid.test(id)) return Effect.fail(invalid())
  // an owner read's instant is to the microsecond (src/Accounts/OwnerReadsRepo.ts): checked as its millisecond
  const millis = createdAt.replace(/^(.{23})\d{3}Z$/, "$1Z")
  const at = new Date(millis)
  if (Number.isNaN(at.getTime()) || at.toISOString() !== millis) return Effect.fail(invalid())
  return Effect.succeed({ createdAt, id })
}

/** The page's start: a cursor, else the legacy page number, else the newest. One more row says if more follow. */
export const pageStart = (
  q: { readonly limit?: number | undefined; readonly page?: number | undefined; readonly cursor?: string | undefined },
  defaultLimit: number
) =>
  Effect.map(cursorParam(q.cursor), (after) => {
    const limit = q.limit ?? defaultLimit
    const offset = after === undefined && q.page !== undefined ? (q.page - 1) * limit : 0
    return { limit, start: { after, offset, limit: limit + 1 } satisfies PageStart }
  })

/** A page of `limit` rows out of the `limit + 1` read past the cursor, and the cursor to the next (null at the end). */
export const pageOf = <R extends { readonly created_at: string; readonly id: string }>(
  rows: ReadonlyArray<R>,
  limit: number
) => {
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    page,
    next_cursor: rows.length > limit && last !== undefined
      ? Buffer.from(`${last.created_at}|${last.id}`, "utf8").toString("base64url")
      : null
  }
}
