import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { iso } from "../../Database/SqlArrays.js"

/** `whsec_` + 24 random bytes in base64, the Standard Webhooks secret format. */
const generateSecret = () => `whsec_${randomBytes(24).toString("base64")}`

/** Per-account webhook signing secret: made on first need, replaced by POST /api/account/webhook-secret. */
export class WebhookSecrets extends Effect.Service<WebhookSecrets>()("Webhooks/Secrets", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The stored secret, storing a new one first if there is none (two nodes agree on one). */
    const current = Effect.fn("WebhookSecrets.current")(function*(userId: Ids.UserId) {
      const now = yield* Clock.currentTimeMillis
      // a no-op update on conflict so RETURNING gives the stored secret
      const rows = yield* Effect.orDie(sql<{ readonly secret: string }>`
        INSERT INTO webhook_secrets (user_id, secret, created_at)
        VALUES (${userId}, ${generateSecret()}, ${iso(now)}::timestamptz)
        ON CONFLICT (user_id) DO UPDATE SET secret = webhook_secrets.secret
        RETURNING secret`)
      return rows[0]!.secret
    })

    const rotate = Effect.fn("WebhookSecrets.rotate")(function*(userId: Ids.UserId) {
      const secret = generateSecret()
      const now = yield* Clock.currentTimeMillis
      yield* Effect.orDie(sql`INSERT INTO webhook_secrets (user_id, secret, created_at)
        VALUES (${userId}, ${secret}, ${iso(now)}::timestamptz)
        ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = EXCLUDED.created_at`)
      return secret
    })

    return { current, rotate } as const
  })
}) {}
