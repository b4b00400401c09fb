import { Events as Api } from "@shoal/domain"
import { Effect } from "effect"
import { EventsRepo } from "./EventsRepo.js"

/** Polling: the same stream as the socket and webhooks, read by cursor. */
export class Events extends Effect.Service<Events>()("Realtime/Events", {
  effect: Effect.gen(function*() {
    const repo = yield* EventsRepo

    /** After `after` (default: the oldest event still retained), at most `limit` (default 100). */
    const poll = Effect.fn("Events.poll")(function*(userId: string, after = 0, limit = 100) {
      // one more than asked says whether there is more without a count
      const rows = yield* Effect.orDie(repo.forRecipient(userId, after, limit + 1))
      const page = rows.slice(0, limit)
      // checked once, when the response is encoded
      return new Api.EventsPage({
        status: "success",
        events: page.map((r): Api.PolledEvent => ({
          cursor: r.cursor,
          id: r.id,
          type: r.type,
          created_at: r.createdAt,
          data: JSON.parse(r.data)
        })),
        next_cursor: page.length > 0 ? page[page.length - 1]!.cursor : after,
        has_more: rows.length > limit
      }, true)
    })

    return { poll } as const
  }),
  dependencies: [EventsRepo.Default]
}) {}
