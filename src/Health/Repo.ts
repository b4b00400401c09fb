import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export class HealthRepo extends Effect.Service<HealthRepo>()("Health/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The cheapest statement the database must answer. */
    const ping = sql`SELECT 1`

    return { ping } as const
  })
}) {}
