import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Errors, Health, ShoalApi } from "@shoal/domain"
import { DateTime, Effect } from "effect"

/** `/health` answers 200 only while the database answers. */
export const HealthHttpLive = HttpApiBuilder.group(ShoalApi, "health", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return handlers.handle("health", () =>
      sql`SELECT 1`.pipe(
        Effect.timeout("2 seconds"),
        Effect.zipRight(DateTime.now),
        Effect.map((now) =>
          new Health.HealthResponse({ status: "success", database: "up", time: DateTime.formatIso(now) })
        ),
        Effect.catchAll(() => Effect.fail(new Errors.Unavailable({ message: "the database is unreachable" })))
      ))
  }))
