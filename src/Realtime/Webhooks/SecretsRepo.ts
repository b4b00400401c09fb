import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import { iso } from "../../Database/SqlArrays.js"

export class WebhookSecretsRepo extends Effect.Service<WebhookSecretsRepo>()("Webhooks/SecretsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The stored secret, storing `candidate` first if there is none (two nodes agree on one). */
    const current = (userId: Ids.UserId, candidate: string, now: number) =>
      // a no-op update on conflict so RETURNING gives the stored secret
      sql<{ readonly secret: string }>`INSERT INTO webhook_secrets (user_id, secret, created_at)
        VALUES (${userId}, ${candidate}, ${iso(now)}::timestamptz)
        ON CONFLICT (user_id) DO UPDATE SET secret = webhook_secrets.secret
        RETURNING secret`.pipe(Effect.map((rows) => rows[0]!.secret))

    const replace = (userId: Ids.UserId, secret: string, now: number) =>
      sql`INSERT INTO webhook_secrets (user_id, secret, created_at) VALUES (${userId}, ${secret}, ${
        iso(now)
      }::timestamptz)
        ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = EXCLUDED.created_at`

    return { current, replace } as const
  })
}) {}
