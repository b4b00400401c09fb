import type { Ids } from "@shoal/domain"
import { ErrorDetails, Errors, Events as Api } from "@shoal/domain"
import { Effect } from "effect"
import { polledEventJson } from "./EventRow.js"
import { EventsRepo } from "./EventsRepo.js"

/**
 * A resume point beyond the newest cursor (a client that kept its cursor across a data reset) would wait forever
 * for events that are never coming: it is refused, on polling and on the socket alike.
 */
export const refuseAhead = (repo: EventsRepo, after: number): Effect.Effect<void, Errors.InvalidRequest> =>
  Effect.flatMap(Effect.orDie(repo.newest), (newest) => {
    if (after <= newest) return Effect.void
    const message =
      `${after} is ahead of the newest event's cursor (${newest}); resume without after, or from a cursor you received`
    return Effect.fail(
      new Errors.InvalidRequest({ message: `after: ${message}`, details: ErrorDetails.fieldDetails("after", message) })
    )
  })

/** Polling: the same stream as the socket and webhooks, read by cursor. */
export class Events extends Effect.Service<Events>()("Realtime/Events", {
  effect: Effect.gen(function*() {
    const repo = yield* EventsRepo

    /**
     * A page after `after` (default: the oldest event still retained), at most `limit` (default 100), as the JSON
     * text of `EventsPage`, each event's data embedded as stored: the bytes that frames and webhook bodies carry for
     * the same event, with no parse and re-serialization per row.
     */
    const pollJson = Effect.fn("Events.page")(function*(userId: Ids.UserId, after = 0, limit = 100) {
      // one more than asked says whether there is more without a count
      const rows = yield* Effect.orDie(repo.after(after, limit + 1, userId))
      // an empty page is the only one that may come from a cursor nobody was ever sent
      if (rows.length === 0 && after > 0) yield* refuseAhead(repo, after)
      const events = rows.slice(0, limit)
      const next = events.length > 0 ? events[events.length - 1]!.cursor : after
      return `{"status":"success","events":[${
        events.map(polledEventJson).join(",")
      }],"next_cursor":${next},"has_more":${rows.length > limit}}`
    })

    /** A page as values, for callers in this process: `pollJson`'s text parsed (checked once, when encoded). */
    const poll = (userId: Ids.UserId, after?: number, limit?: number) =>
      Effect.map(pollJson(userId, after, limit), (json) => new Api.EventsPage(JSON.parse(json), true))

    return { poll, pollJson } as const
  }),
  dependencies: [EventsRepo.Default]
}) {}
