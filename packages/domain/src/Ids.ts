import { ParseResult, Schema } from "effect"

/**
 * Every id a client sees is a UUID branded with what it names, defined once here: a task id cannot be passed where a
 * user id is expected, in the domain package, the services or the repositories.
 */
export const UserId = Schema.UUID.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type
export const ProjectId = Schema.UUID.pipe(Schema.brand("ProjectId"))
export type ProjectId = typeof ProjectId.Type
export const TaskId = Schema.UUID.pipe(Schema.brand("TaskId"))
export type TaskId = typeof TaskId.Type
export const TeamId = Schema.UUID.pipe(Schema.brand("TeamId"))
export type TeamId = typeof TeamId.Type
export const PostId = Schema.UUID.pipe(Schema.brand("PostId"))
export type PostId = typeof PostId.Type
export const CommentId = Schema.UUID.pipe(Schema.brand("CommentId"))
export type CommentId = typeof CommentId.Type
export const ChecklistItemId = Schema.UUID.pipe(Schema.brand("ChecklistItemId"))
export type ChecklistItemId = typeof ChecklistItemId.Type
export const MessageId = Schema.UUID.pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type
export const NotificationId = Schema.UUID.pipe(Schema.brand("NotificationId"))
export type NotificationId = typeof NotificationId.Type
export const ApplicationId = Schema.UUID.pipe(Schema.brand("ApplicationId"))
export type ApplicationId = typeof ApplicationId.Type
export const LedgerTransactionId = Schema.UUID.pipe(Schema.brand("LedgerTransactionId"))
export type LedgerTransactionId = typeof LedgerTransactionId.Type
export const DeliveryId = Schema.UUID.pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type

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
