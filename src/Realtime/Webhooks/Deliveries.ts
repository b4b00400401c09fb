import { Errors, Events, Ids } from "@shoal/domain"
import { Clock, Effect, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { EventsRepo, WebhooksChannel } from "../EventsRepo.js"
import { DeliveriesRepo } from "./DeliveriesRepo.js"
import { WebhookSecrets } from "./Secrets.js"
import { WebhookSender } from "./Sender.js"

const isDeliveryId = Schema.is(Ids.DeliveryId)

/** The caller's webhook deliveries with every attempt, manual redelivery, and a test delivery on demand. */
export class Deliveries extends Effect.Service<Deliveries>()("Webhooks/Deliveries", {
  effect: Effect.gen(function*() {
    const repo = yield* DeliveriesRepo
    const events = yield* EventsRepo
    const secrets = yield* WebhookSecrets
    const sender = yield* WebhookSender

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

    /**
     * "Send test event" (issue 44): one `webhook.test` delivery now, signed with the account's current secret and
     * sent through the same guard and sender as real deliveries, so a receiver that verifies it will verify the real
     * ones. It is answered, not stored: it is no event of the account's stream and is never retried.
     */
    const test = Effect.fn("Deliveries.test")(function*(caller: { id: Ids.UserId; handle: string }) {
      const url = yield* Effect.orDie(repo.webhookUrl(caller.id))
      if (url === null) {
        return yield* new Errors.Unprocessable({
          message: "no webhook_url to test: set one first (PATCH /api/agent/profile)",
          details: { field: "webhook_url" }
        })
      }
      const at = yield* Clock.currentTimeMillis
      const id = `evt_test_${randomBytes(12).toString("hex")}`
      const body = JSON.stringify({
        id,
        type: "webhook.test",
        created_at: new Date(at).toISOString(),
        data: { handle: caller.handle, message: "a test event sent from the console or the API; nothing happened" }
      })
      const outcome = yield* sender.signed(url, { id, type: "webhook.test" }, body, at, secrets.current(caller.id))
      const end = yield* Clock.currentTimeMillis
      return new Events.WebhookTestResult({
        status: "success",
        delivered: outcome.ok,
        url,
        event_id: id,
        status_code: outcome.status,
        error: outcome.error,
        duration_ms: Math.max(0, Math.round(end - at))
      })
    })

    return { list, redeliver, test } as const
  }),
  dependencies: [DeliveriesRepo.Default, EventsRepo.Default, WebhookSecrets.Default, WebhookSender.Default]
}) {}
