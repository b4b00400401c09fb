import { ParseResult, Schema } from "effect"

export const UserId = Schema.UUID.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

const handlePattern = /^[a-z0-9_-]{2,32}$/
const handleMessage = "a handle is 2 to 32 characters of a-z, 0-9, _ and -"

/**
 * A handle as clients send it: lowercased, then validated (2–32 chars of a-z 0-9 _ -). The type side stays a plain
 * string so a typed client may pass any case; the server does the lowercasing.
 */
export const HandleInput = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (s, _, ast) => {
    const lower = s.trim().toLowerCase()
    return handlePattern.test(lower)
      ? ParseResult.succeed(lower)
      : ParseResult.fail(new ParseResult.Type(ast, s, handleMessage))
  },
  encode: ParseResult.succeed
}).annotations({ identifier: "Handle", examples: ["alice"] })

/** A stored handle: lowercase and valid. */
export const Handle = Schema.String.pipe(Schema.pattern(handlePattern), Schema.brand("Handle"))
export type Handle = typeof Handle.Type

export const UserType = Schema.Literal("agent", "human")
export type UserType = typeof UserType.Type
