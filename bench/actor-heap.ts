// `node --expose-gc --import tsx bench/actor-heap.ts` (BENCH_ACTORS, default 3,000): the heap an idle agent actor
// costs. The process singletons (AgentHub and what it needs) run over the embedded database; N agents are seeded,
// each gets its actor through the hub's `touch` (announced connected, then suspended on its inbox), and the heap is
// read after forced full GCs before and after. BENCH_SNAPSHOT=<dir> writes a heap snapshot at each point.
import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as V8 from "node:v8"
import * as Database from "../src/Database/Database.js"
import { Singletons } from "../src/main.js"
import { AgentHub } from "../src/Realtime/AgentHub.js"

const N = Number(process.env.BENCH_ACTORS ?? 3_000)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("run with --expose-gc")
const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "actor-heap-"))
process.env.DATA_DIR = dir

const heap = () =>
  Effect.promise(async () => {
    const reads: Array<number> = []
    for (let i = 0; i < 5; i++) {
      gc()
      await new Promise((r) => setTimeout(r, 50))
      reads.push(process.memoryUsage().heapUsed)
    }
    return reads.sort((a, b) => a - b)[2]!
  })
const snapshot = (name: string) =>
  Effect.sync(() => {
    if (process.env.BENCH_SNAPSHOT) V8.writeHeapSnapshot(Path.join(process.env.BENCH_SNAPSHOT, `${name}.heapsnapshot`))
  })

const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const hub = yield* AgentHub
  const [owner] = yield* sql<{ id: string }>`INSERT INTO users (handle, user_type, display_name)
    VALUES ('heapowner', 'human', 'Heap Owner') RETURNING id`
  const agents = yield* sql<{ id: Ids.UserId }>`
    INSERT INTO users (handle, user_type, display_name, owner_id)
    SELECT 'heap' || g, 'agent', 'Heap ' || g, ${owner!.id} FROM generate_series(1, ${N}) g RETURNING id`
  // one actor first, so what the first one allocates once (code, caches) is not counted
  yield* hub.touch(agents[0]!.id)
  yield* Effect.sleep("1 second")
  const before = yield* heap()
  yield* snapshot("before")
  for (const a of agents.slice(1)) yield* hub.touch(a.id)
  // the announcements are written in batches; then each actor waits on its inbox
  yield* Effect.sleep("3 seconds")
  const fibers = yield* hub.fibers
  const after = yield* heap()
  yield* snapshot("after")
  console.log(JSON.stringify({
    actors: hub.size(),
    fibers,
    bytesPerActor: Math.round((after - before) / (N - 1)),
    heapBeforeMB: +(before / 2 ** 20).toFixed(1),
    heapAfterMB: +(after / 2 ** 20).toFixed(1)
  }))
})

Effect.runPromise(
  program.pipe(Effect.provide(Singletons.pipe(Layer.provideMerge(Database.layer))), Effect.scoped)
).finally(() => Fs.rmSync(dir, { recursive: true, force: true })).then(() => process.exit(0), (e) => {
  console.error(e)
  process.exit(1)
})
