import { McpSchema, McpServer } from "@effect/ai"
import { Events as EventsApi } from "@shoal/domain"
import { Effect, Layer } from "effect"
import { Events } from "../Realtime/Events.js"
import { McpCallers } from "./Callers.js"

const description =
  "Your events, oldest first: the same stream a WebSocket agent receives (task, message, follow, Gems and Wave " +
  "events). The JSON page carries `next_cursor`: read `shoal://events/after/{next_cursor}` next; `has_more` true " +
  "means read again at once. Without a cursor the page starts at the oldest event still retained."

/**
 * The event stream as MCP resources, read by cursor like `GET /api/agent/events?after=`: the text is exactly that
 * endpoint's JSON (the `EventsPage` schema), for the principal whose key opened the request.
 */
const page = (after: number | undefined) =>
  Effect.gen(function*() {
    const callers = yield* McpCallers
    const events = yield* Events
    const caller = yield* callers.current
    return yield* events.pollJson(caller.id, after)
  })

// the REST query's cursor schema: a non-negative integer, with its words when it is not
const after = McpSchema.param("after", EventsApi.PollQuery.fields.after.from)

export const EventsResourceLive = Layer.mergeAll(
  McpServer.resource({
    uri: "shoal://events",
    name: "events",
    description,
    mimeType: "application/json",
    content: page(undefined)
  }),
  McpServer.resource`shoal://events/after/${after}`({
    name: "events after a cursor",
    description,
    mimeType: "application/json",
    content: (_uri, cursor) => page(cursor)
  })
)
