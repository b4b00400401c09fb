import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { MaintenanceLive } from "../../src/Database/Maintenance.js"
import { Supervisor } from "../../src/Supervisor.js"
import { TestDatabase, usingServer } from "../support/TestDatabase.js"

// under TestClock: the first pass comes a minute after start, then every DB_MAINTENANCE_INTERVAL (10 minutes)
layer(Layer.merge(TestDatabase, Supervisor.Default))("embedded database maintenance", (it) => {
  it.scoped.skipIf(usingServer())(
    "vacuums and analyzes every table a minute after start, then every 10 minutes",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // every table: a pass is over only when its last table is done (the clock must not move on before, or
        // the next pass's timer would start after the adjustment meant to fire it)
        const stats = sql<{ relname: string; vacuums: number; analyzes: number }>`
        SELECT relname, vacuum_count::int AS vacuums, analyze_count::int AS analyzes
        FROM pg_stat_user_tables WHERE schemaname = 'public'`
        yield* Layer.launch(MaintenanceLive).pipe(Effect.forkScoped)
        yield* TestClock.adjust("59 seconds")
        expect((yield* stats).every((t) => t.vacuums === 0)).toBe(true)
        const passed = (n: number) =>
          Effect.gen(function*() {
            // the pass runs on the real database: give it real time to finish (one VACUUM per table, so it grows
            // with the schema: 5 s, then 20 s, were too short on a loaded machine as the features' tables came)
            const until = Date.now() + 90_000
            while (Date.now() < until) {
              const rows = yield* stats
              if (rows.length > 10 && rows.every((t) => t.vacuums >= n && t.analyzes >= n)) {
                // and a moment for the fiber to start waiting for the next pass
                yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
                return rows
              }
              yield* Effect.promise(() => new Promise((r) => setTimeout(r, 25)))
            }
            return yield* Effect.die(`no maintenance pass ${n}`)
          })
        yield* TestClock.adjust("1 second")
        yield* passed(1)
        yield* TestClock.adjust("10 minutes")
        yield* passed(2)
      }),
    200_000
  )
})
