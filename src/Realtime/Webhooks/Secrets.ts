import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { generateSecret } from "./Signing.js"

/** Per-account webhook signing secret: made on first need, replaced by POST /api/account/webhook-secret. */
export class WebhookSecrets extends Effect.Service<WebhookSecrets>()("Webhooks/Secrets", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const current = Effect.fn("WebhookSecrets.current")((userId: string) =>
      // a no-op update on conflict so RETURNING gives the stored secret, and two nodes agree on one
      sql<
        { readonly secret: string }
      >`INSERT INTO webhook_secrets (user_id, secret) VALUES (${userId}, ${generateSecret()})
        ON CONFLICT (user_id) DO UPDATE SET secret = webhook_secrets.secret
        RETURNING secret`.pipe(Effect.map((rows) => rows[0]!.secret), Effect.orDie)
    )

    const rotate = Effect.fn("WebhookSecrets.rotate")((userId: string) => {
      const secret = generateSecret()
      return sql`INSERT INTO webhook_secrets (user_id, secret) VALUES (${userId}, ${secret})
        ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = now()`.pipe(
        Effect.as(secret),
        Effect.orDie
      )
    })

    return { current, rotate } as const
  })
}) {}
