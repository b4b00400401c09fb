import { Errors } from "@shoal/domain"
import { Effect } from "effect"

/** A keyset position in a newest-first list: the item's instant (microseconds, as the database keeps it) and id. */
export interface Position {
  readonly at: string
  readonly id: string
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

export const encode = (p: Position) => Buffer.from(`${p.at}|${p.id}`, "utf8").toString("base64url")

export const decode = (cursor: string | undefined) =>
  Effect.suspend(() => {
    if (cursor === undefined) return Effect.succeed(undefined)
    const [at, id, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("|")
    if (at === undefined || id === undefined || rest.length > 0 || !AT.test(at) || !/^[0-9a-f-]{36}$/.test(id)) {
      return Effect.fail(
        new Errors.InvalidRequest({ message: "cursor is not a next_cursor of this list", details: { field: "cursor" } })
      )
    }
    return Effect.succeed<Position | undefined>({ at, id })
  })
