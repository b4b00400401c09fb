import type { Ids } from "@shoal/domain"
import { Errors, Events } from "@shoal/domain"
import { Clock, Effect, Option } from "effect"
import { EventsRepo, WebhooksChannel } from "../EventsRepo.js"
import { DeliveriesRepo, type DeliveryRow } from "./DeliveriesRepo.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const toDelivery = (r: DeliveryRow) =>
  new Events.WebhookDelivery({
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    event_cursor: r.event_cursor,
    state: r.state,
    attempt_count: r.attempt_count,
    next_attempt_at: r.state === "pending" ? r.next_attempt_at.toISOString() : null,
    created_at: r.created_at.toISOString(),
    attempts: r.attempts.map((a) =>
      new Events.WebhookAttempt({ ...a, attempted_at: new Date(a.attempted_at).toISOString() })
    )
  })

/** The caller's webhook deliveries with every attempt, and manual redelivery. */
export class Deliveries extends Effect.Service<Deliveries>()("Webhooks/Deliveries", {
  effect: Effect.gen(function*() {
    const repo = yield* DeliveriesRepo
    const events = yield* EventsRepo

    const list = Effect.fn("Deliveries.list")((userId: Ids.UserId, query: typeof Events.DeliveriesQuery.Type) =>
      repo.list({ userId, state: query.state, limit: query.limit ?? 50 }).pipe(
        Effect.map((rows) => rows.map(toDelivery)),
        Effect.orDie
      )
    )

    const notFound = (id: string) => new Errors.NotFound({ message: `no webhook delivery ${id}` })

    /** Due again at once (a failed one gets one more attempt); the worker is woken on every node. */
    const redeliver = Effect.fn("Deliveries.redeliver")(function*(userId: Ids.UserId, id: string) {
      if (!uuid.test(id)) return yield* notFound(id)
      const now = yield* Clock.currentTimeMillis
      if (!(yield* Effect.orDie(repo.reschedule(userId, id, now)))) return yield* notFound(id)
      yield* Effect.orDie(events.notify(WebhooksChannel, "redeliver"))
      const row = yield* Effect.orDie(repo.find({ userId, id }))
      if (Option.isNone(row)) return yield* notFound(id)
      return toDelivery(row.value)
    })

    return { list, redeliver } as const
  }),
  dependencies: [DeliveriesRepo.Default, EventsRepo.Default]
}) {}
