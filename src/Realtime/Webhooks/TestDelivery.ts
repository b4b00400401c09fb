import { SqlClient } from "@effect/sql"
import { Errors, Events, type Ids } from "@shoal/domain"
import { Clock, Config, Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { WebhookSecrets } from "./Secrets.js"
import { post } from "./Sender.js"
import { sign } from "./Signing.js"
import { UrlGuard } from "./UrlGuard.js"

/** The account's webhook URL (the one query a test delivery needs). */
export class TestDeliveryRepo extends Effect.Service<TestDeliveryRepo>()("Webhooks/TestDeliveryRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const webhookUrl = (userId: Ids.UserId) =>
      Effect.map(
        sql<{ webhook_url: string | null }>`SELECT webhook_url FROM users WHERE id = ${userId}`,
        (rows) => rows[0]?.webhook_url ?? null
      )
    return { webhookUrl } as const
  })
}) {}

/**
 * "Send test event" (issue 44): one `webhook.test` delivery now, signed with the account's current secret and sent
 * through the same guard and sender as real deliveries, so a receiver that verifies it will verify the real ones.
 * It is answered, not stored: it is no event of the account's stream and is never retried.
 */
export class TestDelivery extends Effect.Service<TestDelivery>()("Webhooks/TestDelivery", {
  effect: Effect.gen(function*() {
    const repo = yield* TestDeliveryRepo
    const secrets = yield* WebhookSecrets
    const guard = yield* UrlGuard
    const timeout = yield* Config.duration("WEBHOOK_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))

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
      const verdict = yield* guard.check(url)
      const outcome = !verdict.ok
        ? { status: null, error: `refused: ${verdict.reason}` }
        : yield* post(
          url,
          {
            "x-service-event": "webhook.test",
            "webhook-id": id,
            "webhook-timestamp": String(Math.floor(at / 1000)),
            "webhook-signature": sign(yield* secrets.current(caller.id), id, Math.floor(at / 1000), body)
          },
          body,
          { allowPrivate: guard.allowPrivate, timeout }
        )
      const end = yield* Clock.currentTimeMillis
      const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300
      return new Events.WebhookTestResult({
        status: "success",
        delivered,
        url,
        event_id: id,
        status_code: outcome.status,
        error: outcome.error ?? (delivered ? null : `HTTP ${outcome.status}`),
        duration_ms: Math.max(0, Math.round(end - at))
      })
    })

    return { send } as const
  }),
  dependencies: [TestDeliveryRepo.Default, UrlGuard.Default]
}) {}
