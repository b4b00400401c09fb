import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { lockDataDir } from "./DataDirLock.js"
import { runMigrations } from "./Migrations.js"
import * as Pglite from "./PgliteClient.js"

/** A real PostgreSQL server through @effect/sql-pg. */
export const layerPg = (url: Redacted.Redacted) => PgClient.layer({ url, maxConnections: 10, applicationName: "shoal" })

/** Embedded PGlite under `dir`, one process per directory. */
export const layerEmbedded = (dir: string) =>
  Pglite.layerFrom(Effect.zipRight(lockDataDir(dir), Pglite.open({ dataDir: dir })))

/** SqlClient from config: `DATABASE_URL` → server, else PGlite under `DATA_DIR` (default ./.data). */
export const layerFromConfig = Layer.unwrapEffect(
  Effect.gen(function*() {
    const url = yield* Config.option(Config.redacted("DATABASE_URL"))
    if (Option.isSome(url) && Redacted.value(url.value).length > 0) return layerPg(url.value)
    const dir = yield* Config.string("DATA_DIR").pipe(Config.withDefault("./.data"))
    return layerEmbedded(`${dir.replace(/\/$/, "")}/pg`)
  })
)

/** Runs the forward-only migrations once the client is up. */
export const layerMigrated = <E, R>(client: Layer.Layer<SqlClient.SqlClient, E, R>) =>
  Layer.effectDiscard(runMigrations.pipe(Effect.orDie)).pipe(Layer.provideMerge(client))

export const layer = layerMigrated(layerFromConfig)
