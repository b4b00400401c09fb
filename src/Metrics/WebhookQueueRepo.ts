import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** How many webhook deliveries wait, for the queue-depth gauge. */
export class WebhookQueueRepo extends Effect.Service<WebhookQueueRepo>()("Metrics/WebhookQueueRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Pending deliveries, and those of them due by `now` (the application Clock's); the partial index covers both. */
    const depth = (now: number) =>
      sql<{ readonly pending: string; readonly due: string }>`
        SELECT count(*)::text AS pending,
          count(*) FILTER (WHERE next_attempt_at <= ${new Date(now).toISOString()}::timestamptz)::text AS due
        FROM webhook_deliveries WHERE state = 'pending'
      `.pipe(
        Effect.map((rows) => ({ pending: Number(rows[0]?.pending ?? 0), due: Number(rows[0]?.due ?? 0) })),
        Effect.orDie
      )

    return { depth } as const
  })
}) {}
