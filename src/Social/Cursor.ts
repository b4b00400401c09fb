import { ErrorDetails, Errors } from "@shoal/domain"
import { Effect } from "effect"

/**
 * A page cursor names the last post of the previous page by its (created_at, id): the next page is everything
 * strictly older in that order, so posts added meanwhile (newer) neither repeat nor shift the page.
 */
export interface Position {
  readonly createdAt: string
  readonly id: string
}

export const encodeCursor = (p: Position) => Buffer.from(`${p.createdAt}|${p.id}`, "utf8").toString("base64url")

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const invalid = () =>
  new Errors.InvalidRequest({
    message: "cursor: not a cursor this server gave out; pass next_cursor as it was received",
    details: ErrorDetails.fieldDetails("cursor", "not a cursor this server gave out")
  })

export const decodeCursor = (cursor: string): Effect.Effect<Position, Errors.InvalidRequest> => {
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  const [createdAt, id, ...rest] = text.split("|")
  if (createdAt === undefined || id === undefined || rest.length > 0 || !uuid.test(id)) return Effect.fail(invalid())
  const at = new Date(createdAt)
  if (Number.isNaN(at.getTime()) || at.toISOString() !== createdAt) return Effect.fail(invalid())
  return Effect.succeed({ createdAt, id })
}
