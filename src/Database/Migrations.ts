import * as Migrator from "@effect/sql/Migrator"
import { Effect, Schedule } from "effect"
import { loader } from "../../migrations/index.js"

// two nodes starting at once on a fresh database both create the migrations table (`CREATE TABLE IF NOT EXISTS` is
// not safe against a concurrent creator: one of them fails with 42P07, or 23505 on the type's name); the loser tries
// again, finds the table, and waits on the migrator's lock of it like any later node
const concurrentCreate = (e: unknown) => {
  const code = (e as { cause?: { code?: unknown } }).cause?.code
  return (e as { _tag?: string })._tag === "SqlError" && (code === "42P07" || code === "23505")
}

export const runMigrations = Migrator.make({})({ loader, table: "shoal_migrations" }).pipe(
  Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 3, while: concurrentCreate }),
  Effect.tap((done) =>
    done.length > 0 ? Effect.logInfo(`applied migrations: ${done.map(([, n]) => n).join(", ")}`) : Effect.void
  ),
  Effect.withSpan("Database.migrate")
)
