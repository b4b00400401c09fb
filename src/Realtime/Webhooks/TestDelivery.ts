import { Errors, Events, type Ids } from "@shoal/domain"
import { Clock, Config, Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { DeliveriesRepo } from "./DeliveriesRepo.js"
import { WebhookSecrets } from "./Secrets.js"
import { signedSender } from "./Sender.js"
import { UrlGuard } from "./UrlGuard.js"

/**
 * "Send test event" (issue 44): one `webhook.test` delivery now, signed with the account's current secret and sent
 * through the same guard and sender as real deliveries, so a receiver that verifies it will verify the real ones.
 * It is answered, not stored: it is no event of the account's stream and is never retried.
 */
export class TestDelivery extends Effect.Service<TestDelivery>()("Webhooks/TestDelivery", {
  effect: Effect.gen(function*() {
    const repo = yield* DeliveriesRepo
    const secrets = yield* WebhookSecrets
    const timeout = yield* Config.duration("WEBHOOK_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))
    const deliver = signedSender(yield* UrlGuard, timeout)

    const send = Effect.fn("TestDelivery.send")(function*(caller: { id: Ids.UserId; handle: string }) {
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
      const outcome = yield* deliver(url, { id, type: "webhook.test" }, body, at, secrets.current(caller.id))
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

    return { send } as const
  }),
  dependencies: [DeliveriesRepo.Default, UrlGuard.Default]
}) {}
