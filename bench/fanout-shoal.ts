// The fan-out bench's server: the real app (HttpAppLive over the embedded database, as `npm start` runs it) plus
// two bench-only routes that exist in this entry point alone: a one-event-to-everyone trigger and a memory probe.
// BENCH_AGENTS agents are seeded straight into the database; their keys go to BENCH_KEYS_FILE.
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { EventCatalog, Ids } from "@shoal/domain"
import { Config, Effect, Layer } from "effect"
import * as Fs from "node:fs"
import { generateKey, hashKey } from "../src/Auth/Keys.js"
import * as Database from "../src/Database/Database.js"
import { Pglite } from "../src/Database/PgliteClient.js"
import { listen, serveOn } from "../src/Http/Serve.js"
import { agentApi, EventWorkers, Maintenance, Services, Singletons } from "../src/main.js"
import { Outbox } from "../src/Realtime/Outbox.js"

import { createRequire } from "node:module"
const require_v8 = () => createRequire(import.meta.url)("node:v8") as typeof import("node:v8")
const BenchRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const count = yield* Config.integer("BENCH_AGENTS")
    const keysFile = yield* Config.string("BENCH_KEYS_FILE")

    const [owner] = yield* sql<{ id: string }>`INSERT INTO users (handle, user_type, display_name)
      VALUES ('benchowner', 'human', 'Bench Owner') RETURNING id`
    const agents = yield* sql<{ id: Ids.UserId; handle: string }>`
      INSERT INTO users (handle, user_type, display_name, owner_id)
      SELECT 'bench' || g, 'agent', 'Bench ' || g, ${owner!.id} FROM generate_series(1, ${count}) g
      RETURNING id, handle`
    const keys = agents.map(() => generateKey())
    yield* sql`INSERT INTO api_keys (key_hash, user_id)
      SELECT * FROM unnest(${keys.map(hashKey)}::text[], ${agents.map((a) => a.id)}::uuid[])`
    const ids = agents.map((a) => a.id)
    Fs.writeFileSync(keysFile, JSON.stringify(agents.map((a, i) => ({ id: a.id, handle: a.handle, key: keys[i] }))))

    yield* router.post(
      "/bench/fanout",
      Effect.gen(function*() {
        // a made-up type, as the bare baseline sends: the bench measures delivery, which never looks at types
        yield* sql.withTransaction(
          outbox.emit(ids, "bench.fanout" as EventCatalog.EventType, { at: Date.now() } as never)
        )
        return HttpServerResponse.unsafeJson({ status: "success", recipients: ids.length })
      }).pipe(Effect.orDie)
    )
    yield* router.post(
      "/bench/heapsnapshot",
      Effect.sync(() => HttpServerResponse.unsafeJson({ file: (require_v8()).writeHeapSnapshot() }))
    )
    const pglite = yield* Effect.serviceOption(Pglite)
    yield* router.get(
      "/bench/stats",
      Effect.sync(() => {
        ;(globalThis as { gc?: () => void }).gc?.()
        // the embedded database's WebAssembly memory (grown, never given back), to tell it apart from sockets
        const wasm = pglite._tag === "Some"
          ? ((pglite.value.db as unknown as { mod?: { HEAPU8?: Uint8Array } }).mod?.HEAPU8?.byteLength ?? 0)
          : 0
        return HttpServerResponse.unsafeJson({ ...process.memoryUsage(), wasm })
      })
    )
  })
)

const Main = Layer.mergeAll(
  serveOn(agentApi(BenchRoutes), listen("agent API", "PORT", 8080)),
  EventWorkers,
  Maintenance
)
  .pipe(
    Layer.provide(Services),
    Layer.provide(Singletons),
    Layer.provide(Database.layer)
  )

NodeRuntime.runMain(Layer.launch(Main))
