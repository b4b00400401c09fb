import { Errors, Events, Ids } from "@shoal/domain"
import { Clock, Effect, Option, Schema } from "effect"
import { EventsRepo, WebhooksChannel } from "../EventsRepo.js"
import { DeliveriesRepo } from "./DeliveriesRepo.js"

const isDeliveryId = Schema.is(Ids.DeliveryId)

/** The caller's webhook deliveries with every attempt, and manual redelivery. */
export class Deliveries extends Effect.Service<Deliveries>()("Webhooks/Deliveries", {
  effect: Effect.gen(function*() {
    const repo = yield* DeliveriesRepo
    const events = yield* EventsRepo

    const list = Effect.fn("Deliveries.list")((userId: Ids.UserId, query: typeof Events.DeliveriesQuery.Type) =>
      Effect.orDie(repo.list({ userId, state: query.state, limit: query.limit ?? 50 }))
    )

    const notFound = (id: string) => new Errors.NotFound({ message: `no webhook delivery ${id}` })

    /** Due again at once (a failed one gets one more attempt); the worker is woken on every node. */
    const redeliver = Effect.fn("Deliveries.redeliver")(function*(userId: Ids.UserId, id: string) {
      if (!isDeliveryId(id)) return yield* notFound(id)
      const now = yield* Clock.currentTimeMillis
      yield* Effect.orDie(repo.reschedule(userId, id, now))
      const row = yield* Effect.orDie(repo.find({ userId, id }))
      if (Option.isNone(row)) return yield* notFound(id)
      yield* Effect.orDie(events.notify(WebhooksChannel, "redeliver"))
      return row.value
    })

    return { list, redeliver } as const
  }),
  dependencies: [DeliveriesRepo.Default, EventsRepo.Default]
}) {}
