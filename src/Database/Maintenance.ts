import { SqlClient } from "@effect/sql"
import { Config, Effect, Layer, Option } from "effect"
import { Supervisor } from "../Supervisor.js"
import { Pglite } from "./PgliteClient.js"

/**
 * VACUUM (ANALYZE) for the embedded database, which runs PostgreSQL single-user: no autovacuum worker ever starts
 * (`SHOW autovacuum` says on; nothing runs). Without it, updated and deleted rows are never reclaimed and the
 * planner keeps the statistics of empty tables (a sequential scan of users for every emit). One table per statement,
 * so requests run in between; VACUUM mostly skips tables whose pages are all visible. Every DB_MAINTENANCE_INTERVAL
 * (default 10 minutes), first one minute after start. A server has autovacuum, so nothing runs there.
 */
export const MaintenanceLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    if (Option.isNone(yield* Effect.serviceOption(Pglite))) return
    const sql = yield* SqlClient.SqlClient
    const supervisor = yield* Supervisor
    const every = yield* Config.duration("DB_MAINTENANCE_INTERVAL").pipe(Config.withDefault("10 minutes"))

    const pass = Effect.gen(function*() {
      const tables = yield* sql<{ readonly name: string }>`
        SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`
      for (const { name } of tables) yield* sql.unsafe(`VACUUM (ANALYZE) ${name}`).unprepared
    })
    yield* supervisor.every("database", "maintenance", every, pass, { first: "1 minute" })
  })
)
