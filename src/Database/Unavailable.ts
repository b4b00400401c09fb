import { SqlError } from "@effect/sql/SqlError"
import { Config, Data, Duration, Option } from "effect"

/**
 * The database being unavailable, as opposed to a bug: it refused or dropped the connection, or it did not answer
 * within `DATABASE_TIMEOUT`. Requests that meet it answer 503 `unavailable` with Retry-After (a client should come
 * back), where any other failure stays a 500.
 */
export type Reason = "unreachable" | "timeout"

/**
 * How long a statement may wait for a connection (the pool, or the embedded database's lock) and, on a server, run
 * before it fails: `DATABASE_TIMEOUT`, default 5 seconds; `0 seconds` turns the deadlines off.
 */
export const databaseTimeout = Config.duration("DATABASE_TIMEOUT").pipe(
  Config.withDefault(Duration.seconds(5)),
  Config.map((d) => Duration.toMillis(d) > 0 ? Option.some(d) : Option.none())
)

/** What a client is told to wait before trying again. */
export const retryAfterSeconds = 5

/** The cause of a SqlError when a statement waited past the deadline. */
export class DeadlineExceeded extends Data.TaggedError("DatabaseDeadlineExceeded")<{ readonly message: string }> {}

export const deadlineError = (what: string, deadline: Duration.Duration) =>
  new SqlError({
    message: `${what} took longer than ${Duration.format(deadline)} (DATABASE_TIMEOUT)`,
    cause: new DeadlineExceeded({ message: `${what} timed out` })
  })

// node-postgres and Node's sockets say so in messages and codes; a statement cancelled by `statement_timeout` is
// SQLSTATE 57014; class 08 is "connection exception", 57P01-03 a server shutting down or starting, 53300 full
const timeoutMessages = [
  "Query read timeout",
  "timeout exceeded when trying to connect",
  "Connection terminated due to connection timeout",
  "timeout expired"
]
const goneMessages = [
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable"
]
const socketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN"
])

const classify = (e: unknown, depth: number): Reason | undefined => {
  if (typeof e !== "object" || e === null || depth > 4) return undefined
  const { _tag, code, message, cause, errors } = e as Record<string, unknown>
  if (_tag === "DatabaseDeadlineExceeded") return "timeout"
  if (typeof code === "string") {
    if (code === "57014" || code === "ETIMEDOUT") return "timeout"
    if (socketCodes.has(code) || code.startsWith("08") || /^57P0[123]$/.test(code) || code === "53300") {
      return "unreachable"
    }
  }
  if (typeof message === "string") {
    if (timeoutMessages.some((m) => message.startsWith(m))) return "timeout"
    if (goneMessages.some((m) => message.startsWith(m))) return "unreachable"
  }
  // connecting to a name with several addresses fails with one error per address
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const reason = classify(inner, depth + 1)
      if (reason !== undefined) return reason
    }
  }
  return classify(cause, depth + 1)
}

/** Whether `u` (a failure or defect) is the database being unavailable, and why; undefined for anything else. */
export const unavailableReason = (u: unknown): Reason | undefined =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "SqlError"
    ? classify((u as SqlError).cause, 0)
    : undefined

export const describeReason = (reason: Reason) =>
  reason === "timeout" ? "the database did not answer in time" : "the database is unreachable"
