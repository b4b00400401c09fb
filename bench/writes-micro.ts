// `npx tsx bench/writes-micro.ts`: the embedded write path without HTTP, in one process. WRITES writes (default
// 2,000) of an UPDATE … RETURNING and its outbox event, 64 in flight, group-committed with the batch's events
// gathered into one insert (as Profiles does) and without (one insert per write), in alternating rounds on one
// PGlite on disk; prints CPU and wall time per write with the load average (bench/README.md, "writes").
import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Database from "../src/Database/Database.js"
import * as GroupCommit from "../src/Database/GroupCommit.js"
import { Blocks } from "../src/Realtime/Blocks.js"
import { Outbox } from "../src/Realtime/Outbox.js"
import { Supervisor } from "../src/Supervisor.js"

const WRITES = Number(process.env.WRITES ?? 2_000)
const IN_FLIGHT = 64
const ROUNDS = Number(process.env.ROUNDS ?? 2)

const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const outbox = yield* Outbox
  yield* sql`CREATE TABLE IF NOT EXISTS bench_rows (id int PRIMARY KEY, v text NOT NULL)`
  yield* sql`INSERT INTO bench_rows SELECT g, '' FROM generate_series(0, 499) g ON CONFLICT DO NOTHING`
  const recipients = Array.from({ length: 500 }, () => randomUUID() as Ids.UserId)
  const round = (label: string, writes: GroupCommit.GroupCommit) =>
    Effect.gen(function*() {
      let next = 0
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      yield* Effect.forEach(Array.from({ length: IN_FLIGHT }), () =>
        Effect.gen(function*() {
          while (next < WRITES) {
            const n = next++
            yield* writes.submit(Effect.zipRight(
              sql`UPDATE bench_rows SET v = ${`write ${n}`} WHERE id = ${n % 500} RETURNING *`,
              outbox.emit([recipients[n % 500]!], "profile.updated", { handle: `h${n}`, fields: ["bio"] })
            ))
          }
        }), { concurrency: "unbounded", discard: true })
      const cpu = process.cpuUsage(cpu0)
      const wall = performance.now() - t0
      console.log(
        `  ${label.padEnd(22)} CPU ${((cpu.user + cpu.system) / WRITES).toFixed(0).padStart(5)} µs/write, wall ` +
          `${(wall * 1000 / WRITES).toFixed(0).padStart(5)} µs/write (load ${Os.loadavg()[0]!.toFixed(1)})`
      )
    })
  const plain = yield* GroupCommit.make({ maxBatch: 64, enabled: true })
  const gathered = yield* GroupCommit.make({ maxBatch: 64, enabled: true, gather: outbox.gathered })
  const single = yield* GroupCommit.make({ maxBatch: 64, enabled: false })
  console.log(`writes micro: ${WRITES} writes, ${IN_FLIGHT} in flight, embedded PGlite on disk`)
  yield* round("warm-up (gathered)", gathered)
  for (let i = 0; i < ROUNDS; i++) {
    yield* round("transaction each", single)
    yield* round("group commit", plain)
    yield* round("group commit, gathered", gathered)
  }
})

const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-writes-micro-"))
await Effect.runPromise(
  Effect.scoped(program).pipe(
    Effect.provide(Outbox.Default.pipe(
      Layer.provideMerge(Layer.merge(Blocks.Default, Supervisor.Default)),
      Layer.provideMerge(Database.layerMigrated(Database.layerEmbedded(`${dir}/pg`)))
    ))
  )
).finally(() => Fs.rmSync(dir, { recursive: true, force: true }))
