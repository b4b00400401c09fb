import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Random } from "effect"
import { lazyBegin } from "../../src/Database/LazyBegin.js"
import { ORDER_LOCK } from "../../src/Realtime/EventsRepo.js"
import { Outbox } from "../../src/Realtime/Outbox.js"
import { emitLoose, RealtimeApp } from "../support/Realtime.js"
import { signUp } from "../support/TestApp.js"
import { usingServer } from "../support/TestDatabase.js"

// Events in a transaction: on a server every transaction holds its emits' inserts back and sends them with COMMIT
// in one script, after the order lock (src/Database/CommitScript.ts; values written in as literals); embedded they
// are inserted at once. Either way: the event commits with its write or not at all, and cursor order is commit
// order, so a reader asking for `cursor > last` never skips one.
const app = RealtimeApp()

const HOSTILE = [
  "'; DROP TABLE events; --",
  "it's",
  "''",
  "\\",
  "\\'",
  "back\\slash\\\\ and \\n not a newline",
  "$1 $2 $$ $tag$ dollar $tag$",
  "E'x'",
  "line\nbreak\ttab\r",
  "ünïcødé ✓ 🐚 \u2028",
  "\"double\" 'single' `back`"
]

const setup = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS outbox_probe (id text PRIMARY KEY)`
  yield* sql`CREATE TABLE IF NOT EXISTS outbox_counter (id int PRIMARY KEY, n int NOT NULL)`
  yield* sql`INSERT INTO outbox_counter VALUES (1, 0) ON CONFLICT DO NOTHING`
  return sql
})

const eventsOf = (sql: SqlClient.SqlClient, recipient: string, after = 0) =>
  sql<{ cursor: string; type: string; data: unknown }>`SELECT cursor::text AS cursor, type, data FROM events
    WHERE recipient_id = ${recipient} AND cursor > ${after} ORDER BY events.cursor`

layer(app, { excludeTestServices: true })("events in a transaction", (it) => {
  it.effect("the event is stored with the write; a failed body or a failed insert leaves neither", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      const outbox = yield* Outbox
      const human = yield* signUp()
      const me = human.user.id
      const id = `ok-${me}`
      const answer = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO outbox_probe VALUES (${id})`
        yield* emitLoose(outbox, [me], "test.tx", { id })
        return "done"
      }))
      expect(answer).toBe("done")
      expect((yield* sql`SELECT id FROM outbox_probe WHERE id = ${id}`).length).toBe(1)
      const stored = yield* eventsOf(sql, me)
      expect(stored.map((e) => [e.type, e.data])).toEqual([["test.tx", { id }]])

      // the body fails after its write and emit: both rolled back, the failure passed on
      const failed = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO outbox_probe VALUES (${`no-${me}`})`
        yield* emitLoose(outbox, [me], "test.tx", { id: "no" })
        return yield* Effect.fail("refused" as const)
      })).pipe(Effect.exit)
      expect(Exit.isFailure(failed)).toBe(true)
      // the event's insert fails (a recipient that is no uuid): on a server pipelined with the COMMIT, which then
      // rolls back (PostgreSQL answers a COMMIT in a failed transaction with ROLLBACK), and the write goes with it
      const broken = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO outbox_probe VALUES (${`broken-${me}`})`
        yield* emitLoose(outbox, [me], "test.tx", { id: "broken" })
        yield* emitLoose(outbox, ["not-a-uuid"], "test.tx", { id: "broken" })
      })).pipe(Effect.exit)
      expect(Exit.isFailure(broken)).toBe(true)
      expect((yield* sql`SELECT id FROM outbox_probe WHERE id IN (${`no-${me}`}, ${`broken-${me}`})`).length).toBe(0)
      const last = Number(stored[0]!.cursor)
      expect(yield* eventsOf(sql, me, last)).toEqual([])

      // the connection is usable again, and a reader at `last` gets the next event: no gap it could lose
      yield* sql.withTransaction(emitLoose(outbox, [me], "test.tx", { id: "after" }))
      const next = yield* eventsOf(sql, me, last)
      expect(next.map((e) => e.data)).toEqual([{ id: "after" }])
    }))

  it.effect("cursor order is commit order under concurrent emitting transactions; a reader never skips", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      const outbox = yield* Outbox
      const human = yield* signUp()
      const me = human.user.id
      const N = 40
      // a reader polling `cursor > last` all along, as the dispatcher and clients do
      const seen: Array<number> = []
      let done = false
      const reader = yield* Effect.fork(Effect.gen(function*() {
        while (!done) {
          const rows = yield* eventsOf(sql, me, seen.at(-1) ?? 0)
          for (const r of rows) seen.push(Number(r.cursor))
          yield* Effect.sleep("3 millis")
        }
      }))
      // each takes the counter's row lock, so transactions commit in the order of the n they read; some of them
      // also write another row and wait a little before committing, so that they overlap
      yield* Effect.forEach(Array.from({ length: N }, (_, i) => i), (i) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO outbox_probe VALUES (${`order-${me}-${i}`})`
          yield* Effect.sleep(`${yield* Random.nextIntBetween(0, 5)} millis`)
          const [row] = yield* sql<{ n: number }>`UPDATE outbox_counter SET n = n + 1 WHERE id = 1 RETURNING n`
          yield* emitLoose(outbox, [me], "test.order", { n: row!.n })
        })), { concurrency: 12 })
      done = true
      yield* Fiber.join(reader)
      for (const r of yield* eventsOf(sql, me, seen.at(-1) ?? 0)) seen.push(Number(r.cursor))

      const all = yield* eventsOf(sql, me)
      expect(all.length).toBe(N)
      const ns = all.map((e) => (e.data as { n: number }).n)
      expect([...ns].sort((a, b) => a - b)).toEqual(ns)
      expect(seen).toEqual(all.map((e) => Number(e.cursor)))
    }))

  it.effect("hostile strings round-trip as event data and type, with the COMMIT", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      const outbox = yield* Outbox
      const human = yield* signUp()
      const me = human.user.id
      yield* sql.withTransaction(Effect.forEach(HOSTILE, (s, i) => emitLoose(outbox, [me], `test.${s}`, { s, i })))
      const stored = yield* eventsOf(sql, me)
      expect(stored.map((e) => [e.type, e.data])).toEqual(HOSTILE.map((s, i) => [`test.${s}`, { s, i }]))
    }))

  it.effect("BEGIN goes with the first statement or the events' script; a failure there leaves the connection clean", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      const outbox = yield* Outbox
      const human = yield* signUp()
      const me = human.user.id
      // no statement in the body: on a server BEGIN rides with the events' script, whose insert fails here
      const broken = yield* sql.withTransaction(Effect.gen(function*() {
        yield* emitLoose(outbox, [me], "test.tx", { id: "first" })
        yield* emitLoose(outbox, ["not-a-uuid"], "test.tx", { id: "first" })
      })).pipe(Effect.exit)
      expect(Exit.isFailure(broken)).toBe(true)
      expect(yield* eventsOf(sql, me)).toEqual([])
      // the body fails before any statement: nothing was opened, nothing is left open
      const refused = yield* sql.withTransaction(Effect.fail("refused" as const)).pipe(Effect.exit)
      expect(Exit.isFailure(refused)).toBe(true)
      // every connection of the pool still works outside a transaction (none left aborted or open)
      yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO outbox_probe VALUES (${`first-${me}-${i}`})`
          yield* emitLoose(outbox, [me], "test.tx", { i })
        })), { concurrency: 12 })
      expect((yield* eventsOf(sql, me)).length).toBe(12)
      const open = yield* Effect.forEach(
        Array.from({ length: 12 }),
        () => sql<{ n: string }>`SELECT txid_current_if_assigned()::text AS n`,
        { concurrency: 12 }
      )
      expect(open.map((r) => r[0]!.n)).toEqual(open.map(() => null))
    }))

  it.effect("an emit in a savepoint that rolls back goes with it; what the other savepoints emitted commits", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      const outbox = yield* Outbox
      const human = yield* signUp()
      const me = human.user.id
      const step = (id: string) =>
        Effect.zipRight(
          sql`INSERT INTO outbox_probe VALUES (${`sp-${me}-${id}`})`,
          emitLoose(outbox, [me], "test.sp", { id })
        )
      const refused = (body: Effect.Effect<void, unknown>) =>
        Effect.ignore(sql.withTransaction(Effect.zipRight(body, Effect.fail("refused" as const))))
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* step("a")
        yield* refused(step("b"))
        yield* sql.withTransaction(step("c"))
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* refused(Effect.zipRight(step("d"), sql.withTransaction(step("e"))))
          yield* step("f")
        }))
        yield* step("g")
      }))
      const ids = ["a", "c", "f", "g"]
      expect((yield* eventsOf(sql, me)).map((e) => e.data)).toEqual(ids.map((id) => ({ id })))
      const rows = yield* sql<{ id: string }>`SELECT id FROM outbox_probe WHERE id LIKE ${`sp-${me}-%`} ORDER BY id`
      expect(rows.map((r) => r.id)).toEqual(ids.map((id) => `sp-${me}-${id}`))
    }))

  // a server only: PGlite takes no order lock (one transaction at a time)
  it.effect.skipIf(!usingServer())(
    "a plain transaction that emitted holds no order lock until its COMMIT: another session takes it meanwhile",
    () =>
      Effect.gen(function*() {
        const sql = yield* setup
        const outbox = yield* Outbox
        const human = yield* signUp()
        const me = human.user.id
        const emitted = yield* Deferred.make<number>()
        const commit = yield* Deferred.make<void>()
        const paused = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO outbox_probe VALUES (${`paused-${me}`})`
          yield* emitLoose(outbox, [me], "test.paused", { at: "top" })
          yield* sql.withTransaction(emitLoose(outbox, [me], "test.paused", { at: "savepoint" }))
          const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
          yield* Deferred.succeed(emitted, row!.pid)
          yield* Deferred.await(commit)
        })))
        const pid = yield* Deferred.await(emitted)
        // the paused transaction holds no advisory lock, and another connection takes the order lock at once
        const held = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND pid = ${pid}`
        expect(held[0]!.n).toBe(0)
        const taken = yield* sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ pid: number; ok: boolean }>`SELECT pg_backend_pid() AS pid,
            pg_try_advisory_xact_lock(${ORDER_LOCK}) AS ok`
          return row!
        }))
        expect(taken.pid).not.toBe(pid)
        expect(taken.ok).toBe(true)
        // and an emitting transaction commits meanwhile, its events ahead of the paused one's
        yield* sql.withTransaction(emitLoose(outbox, [me], "test.meanwhile"))
        expect((yield* eventsOf(sql, me)).map((e) => e.type)).toEqual(["test.meanwhile"])
        yield* Deferred.succeed(commit, undefined)
        yield* Fiber.join(paused)
        const all = yield* eventsOf(sql, me)
        expect(all.map((e) => [e.type, e.data])).toEqual([
          ["test.meanwhile", {}],
          ["test.paused", { at: "top" }],
          ["test.paused", { at: "savepoint" }]
        ])
        expect((yield* sql`SELECT id FROM outbox_probe WHERE id = ${`paused-${me}`}`).length).toBe(1)
      })
  )

  // a server's connection only: transactions hold BEGIN back there (PGlite prepares every statement)
  it.effect.skipIf(!usingServer())(
    "statements started together on a held-back BEGIN all run inside the transaction",
    () =>
      Effect.gen(function*() {
        const sql = yield* setup
        const human = yield* signUp()
        const me = human.user.id
        const ids = Array.from({ length: 4 }, (_, i) => `lazy-${me}-${i}`)
        yield* Effect.scoped(Effect.gen(function*() {
          const tx = lazyBegin(yield* sql.reserve)
          expect(tx.begun()).toBe(false)
          yield* Effect.all([
            tx.execute("INSERT INTO outbox_probe VALUES ($1)", [ids[0]], undefined),
            tx.execute("INSERT INTO outbox_probe VALUES ($1)", [ids[1]], undefined),
            tx.executeValues("INSERT INTO outbox_probe VALUES ($1)", [ids[2]]),
            tx.executeUnprepared("INSERT INTO outbox_probe VALUES ($1)", [ids[3]], undefined)
          ], { concurrency: "unbounded" })
          expect(tx.begun()).toBe(true)
          yield* tx.executeUnprepared("ROLLBACK", [], undefined)
        }))
        // rolled back together: none of them ran on its own ahead of the BEGIN
        expect(yield* sql`SELECT id FROM outbox_probe WHERE id IN ${sql.in(ids)}`).toEqual([])
      })
  )
})
