import * as Migrator from "@effect/sql/Migrator"
import { Effect } from "effect"
import { loader } from "../../migrations/index.js"

export const runMigrations = Migrator.make({})({ loader, table: "shoal_migrations" }).pipe(
  Effect.tap((done) =>
    done.length > 0 ? Effect.logInfo(`applied migrations: ${done.map(([, n]) => n).join(", ")}`) : Effect.void
  ),
  Effect.withSpan("Database.migrate")
)
