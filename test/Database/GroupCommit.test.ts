import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { randomUUID } from "node:crypto"
import * as GroupCommit from "../../src/Database/GroupCommit.js"
import { Blocks } from "../../src/Realtime/Blocks.js"
import { Outbox } from "../../src/Realtime/Outbox.js"
import { Supervisor } from "../../src/Supervisor.js"
import { TestDatabase } from "../support/TestDatabase.js"

const Deps = Outbox.Default.pipe(
  Layer.provideMerge(Layer.merge(Blocks.Default, Supervisor.Default)),
  Layer.provideMerge(TestDatabase)
)
/** A fresh table, and a committer that gathers its batches' events as Profiles makes it. */
const setUp = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const outbox = yield* Outbox
  const table = sql(`gc_${randomUUID().replace(/-/g, "")}`)
  yield* sql`CREATE TABLE ${table} (id int PRIMARY KEY, v text NOT NULL)`
  const writes = yield* GroupCommit.make({ maxBatch: 64, enabled: true, gather: outbox.gathered })
  return { sql, outbox, table, writes }
})

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

layer(Deps)("group commit", (it) => {
  it.scoped("one failing write fails alone; acknowledgements come after the commit; only committed events", () =>
    Effect.gen(function*() {
      // as Profiles makes it: the batch's events gathered into one insert at its end
      const { outbox, sql, table, writes } = yield* setUp
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()] as Array<Ids.UserId>
      const write = (id: number, v: string, recipient: Ids.UserId) =>
        Effect.zipRight(
          outbox.emit([recipient], "profile.updated", { handle: v, fields: ["bio"] }),
          sql`INSERT INTO ${table} (id, v) VALUES (${id}, ${v})`
        )

      // a first write holds the committer until the next three are queued, so they make one batch
      const hold = yield* Deferred.make<void>()
      const holding = yield* Effect.fork(writes.submit(Deferred.await(hold)))
      yield* sleep(50)
      const last = yield* Deferred.make<void>()
      const first = yield* Effect.fork(writes.submit(write(1, "a", a)))
      // emits its event, then breaks the primary key: its event must go with its insert
      const failing = yield* Effect.fork(writes.submit(write(1, "duplicate", b)))
      // the batch's last write waits for `last`: nothing of the batch may be acknowledged before that
      const third = yield* Effect.fork(writes.submit(Effect.zipLeft(write(2, "c", c), Deferred.await(last))))
      yield* sleep(50)
      yield* Deferred.succeed(hold, undefined)
      yield* Fiber.join(holding)
      yield* sleep(200)
      expect(yield* Fiber.poll(first)).toEqual(expect.objectContaining({ _tag: "None" }))
      expect(yield* Fiber.poll(failing)).toEqual(expect.objectContaining({ _tag: "None" }))
      yield* Deferred.succeed(last, undefined)

      const [one, two, three] = yield* Effect.all([first, failing, third].map(Fiber.await))
      expect(Exit.isSuccess(one!)).toBe(true)
      expect(Exit.isSuccess(three!)).toBe(true)
      expect(Exit.isFailure(two!)).toBe(true)
      // the failing request gets its own error: the primary key's
      expect(JSON.stringify(Exit.isFailure(two!) ? two.cause : "")).toMatch(/duplicate key|23505|unique/i)

      // committed: visible outside the transaction once acknowledged
      const rows = yield* sql<{ id: number; v: string }>`SELECT id, v FROM ${table} ORDER BY id`
      expect(rows).toEqual([{ id: 1, v: "a" }, { id: 2, v: "c" }])
      const events = yield* sql<{ recipient_id: string }>`
        SELECT recipient_id FROM events WHERE recipient_id IN (${a}, ${b}, ${c})`
      expect(events.map((e) => e.recipient_id).sort()).toEqual([a, c].sort())
    }))

  it.scoped("a batch's events, gathered into one insert, are stored with their writes, one per write", () =>
    Effect.gen(function*() {
      const { outbox, sql, table, writes } = yield* setUp
      const recipients = Array.from({ length: 5 }, () => randomUUID() as Ids.UserId)
      const hold = yield* Deferred.make<void>()
      const holding = yield* Effect.fork(writes.submit(Deferred.await(hold)))
      yield* sleep(50)
      const batch = yield* Effect.forEach(recipients, (r, i) =>
        Effect.fork(writes.submit(Effect.zipRight(
          outbox.emit([r], "profile.updated", { handle: `h${i}`, fields: ["bio"] }),
          sql`INSERT INTO ${table} (id, v) VALUES (${i}, ${r})`
        ))))
      yield* sleep(50)
      yield* Deferred.succeed(hold, undefined)
      yield* Fiber.join(holding)
      yield* Effect.forEach(batch, Fiber.join)
      expect((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${table}`)[0]!.n).toBe(5)
      const events = yield* sql<{ recipient_id: string; cursor: string; data: { handle: string } }>`
        SELECT recipient_id, cursor::text, data FROM events WHERE recipient_id IN ${sql.in(recipients)}
        ORDER BY cursor`
      // one event each, in submission order, with its own data, in one contiguous block of cursors
      expect(events.map((e) => e.recipient_id)).toEqual(recipients)
      expect(events.map((e) => e.data.handle)).toEqual(["h0", "h1", "h2", "h3", "h4"])
      expect(Number(events[4]!.cursor) - Number(events[0]!.cursor)).toBe(4)
    }))

  it.scoped("a lone write that fails rolls its transaction back; the committer goes on", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const table = sql(`gc_${randomUUID().replace(/-/g, "")}`)
      yield* sql`CREATE TABLE ${table} (id int PRIMARY KEY)`
      const writes = yield* GroupCommit.make({ maxBatch: 64, enabled: true })
      const failed = yield* Effect.exit(writes.submit(
        Effect.zipRight(sql`INSERT INTO ${table} VALUES (7)`, Effect.fail("refused" as const))
      ))
      expect(failed).toEqual(Exit.fail("refused"))
      yield* writes.submit(sql`INSERT INTO ${table} VALUES (8)`)
      expect(yield* sql<{ id: number }>`SELECT id FROM ${table}`).toEqual([{ id: 8 }])
    }))
})
