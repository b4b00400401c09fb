import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EventsRepo } from "../../src/Realtime/EventsRepo.js"
import { Outbox } from "../../src/Realtime/Outbox.js"
import { rawRequest } from "../support/Raw.js"
import { emit, emitLoose, openSocket, RealtimeApp, receiver, waitFor, waitForEffect } from "../support/Realtime.js"
import { signUp } from "../support/TestApp.js"

// a fan-out from 3 recipients on, expanded 2 at a time: every path of a large emit with a handful of accounts
const app = RealtimeApp({ EVENT_FANOUT_AT: "3", EVENT_EXPAND_CHUNK: "2", WEBHOOK_ALLOW_PRIVATE: "true" })

const poll = (key: string, after = 0) =>
  Effect.map(rawRequest("GET", `/api/agent/events?after=${after}`, { key }), (r) => r.body.events as Array<any>)

layer(app, { excludeTestServices: true })("large fan-outs", (it) => {
  it.scoped("reach every socket once, poll like any event, and end as one stored row per recipient", () =>
    Effect.gen(function*() {
      // humans: no presence events in their streams
      const people = yield* Effect.all(Array.from({ length: 5 }, () => signUp()))
      const sockets = yield* Effect.forEach(people.slice(0, 2), (p) => openSocket({ key: p.api_key }))
      yield* Effect.forEach(sockets, (s) => s.ready())
      yield* emit(people.map((p) => p.user.id), "test.fanout", { n: 1 })
      const heard = yield* Effect.forEach(sockets, (s) => s.waitEvents("test.fanout", 1))
      const sql = yield* SqlClient.SqlClient
      yield* waitForEffect(
        "the fan-out to be expanded",
        Effect.map(
          sql<{ n: number }>`SELECT count(*)::int AS n FROM event_fanouts`,
          (r) => r[0]!.n === 0 || undefined
        )
      )
      const polled = yield* Effect.forEach(people, (p) => poll(p.api_key))
      for (const events of polled) {
        expect(events.map((e) => [e.type, e.data])).toEqual([["test.fanout", { n: 1 }]])
      }
      // one cursor and one id per recipient, the same on the socket as in polling
      const cursors = polled.map((e) => e[0].cursor as number)
      expect(new Set(cursors).size).toBe(5)
      expect(new Set(polled.map((e) => e[0].id)).size).toBe(5)
      heard.forEach((frames, i) => {
        expect(frames.length).toBe(1)
        expect(frames[0]!.cursor).toBe(cursors[i])
        expect(frames[0]!.event!.id).toBe(polled[i]![0].id)
      })
      const stored = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM events
        WHERE cursor IN ${sql.in(cursors)} AND type = 'test.fanout'`
      expect(stored[0]!.n).toBe(5)
      // resuming after the fan-out's cursor gives nothing more
      const again = yield* openSocket({ key: people[0]!.api_key, query: `?after=${cursors[0]! - 1}` })
      const replayed = yield* again.waitEvents("test.fanout", 1)
      expect(replayed[0]!.event!.id).toBe(polled[0]![0].id)
    }))

  it.scoped("a recipient with a webhook gets the event once, with the id it polls", () =>
    Effect.gen(function*() {
      const people = yield* Effect.all(Array.from({ length: 4 }, () => signUp()))
      const hook = yield* receiver()
      const set = yield* rawRequest("PATCH", "/api/agent/profile", {
        key: people[2]!.api_key,
        body: JSON.stringify({ webhook_url: hook.url })
      })
      expect(set.status).toBe(200)
      yield* emit(people.map((p) => p.user.id), "test.fanout.hook", { h: 1 })
      const got = yield* waitFor("the webhook", () => hook.requests.find((r) => r.body.includes("test.fanout.hook")))
      const [polled] = (yield* poll(people[2]!.api_key)).filter((e) => e.type === "test.fanout.hook")
      expect(got.headers["webhook-id"]).toBe(polled.id)
      expect(JSON.parse(got.body)).toMatchObject({ id: polled.id, type: "test.fanout.hook", data: { h: 1 } })
      yield* Effect.sleep("300 millis")
      expect(hook.requests.filter((r) => r.body.includes("test.fanout.hook")).length).toBe(1)
    }))

  it.scoped("a rolled-back fan-out leaves nothing and is never delivered", () =>
    Effect.gen(function*() {
      const people = yield* Effect.all(Array.from({ length: 3 }, () => signUp()))
      const socket = yield* openSocket({ key: people[0]!.api_key })
      yield* socket.ready()
      const outbox = yield* Outbox
      const sql = yield* SqlClient.SqlClient
      yield* emitLoose(outbox, people.map((p) => p.user.id), "test.fanout.rolledback").pipe(
        Effect.zipRight(Effect.fail("abort")),
        sql.withTransaction,
        Effect.flip
      )
      yield* emit(people.map((p) => p.user.id), "test.fanout.committed")
      yield* socket.waitEvents("test.fanout.committed", 1)
      expect(socket.events("test.fanout.rolledback")).toEqual([])
      for (const p of people) {
        expect((yield* poll(p.api_key)).map((e) => e.type)).toEqual(["test.fanout.committed"])
      }
    }))

  it.effect("readers see each cursor exactly once at every step of an expansion", () =>
    Effect.gen(function*() {
      const people = yield* Effect.all(Array.from({ length: 5 }, () => signUp()))
      const ids = people.map((p) => p.user.id)
      const sql = yield* SqlClient.SqlClient
      const repo = yield* EventsRepo
      // as the outbox writes it (JSON.stringify): every reader gives back this text, whatever step the expansion is at
      const data = JSON.stringify({ k: 1, zeta: [1, 2.5], a: { y: "é", x: null } })
      // written as the outbox does but without its notice, so nothing expands it until this test says so (a
      // server's slow poll may still wake the expander: the assertions hold either way)
      const [row] = yield* sql<{ lo: string }>`
        WITH block AS (SELECT nextval('events_cursor_seq') AS lo),
        reserved AS (SELECT setval('events_cursor_seq', lo + 4) AS hi FROM block)
        INSERT INTO event_fanouts (lo, hi, salt, type, data, recipients, due_at)
        SELECT lo, hi, 'feedfacefeedface', 'test.expand', ${data}, ${ids.join(",")}, now() FROM block, reserved
        RETURNING lo::text AS lo`
      const lo = Number(row!.lo)
      const snapshot = Effect.gen(function*() {
        const all = (yield* repo.after(lo - 1, 100)).filter((r) => r.cursor >= lo && r.cursor <= lo + 4)
        const mine = yield* Effect.forEach(ids, (id) => repo.after(lo - 1, 100, id))
        return { all, mine }
      })
      const before = yield* snapshot
      expect(before.all.map((r) => [r.cursor, r.recipientId])).toEqual(ids.map((id, i) => [lo + i, id]))
      expect(before.all.every((r) => r.type === "test.expand" && r.data === data)).toBe(true)
      before.mine.forEach((rows, i) => expect(rows.map((r) => r.cursor)).toEqual([lo + i]))
      // 5 recipients, 2 per chunk: three chunks, then nothing left
      while (yield* repo.expandChunk(2)) {
        const now = yield* snapshot
        expect(now.all).toEqual(before.all)
        expect(now.mine).toEqual(before.mine)
      }
      // the node's own expander (its slow poll) may hold the row's last chunk at this moment (the test's expandChunk
      // skips a locked row and says "nothing"): wait for it, bounded, taking any chunk left
      const left = sql<{ n: number }>`SELECT count(*)::int AS n FROM event_fanouts WHERE lo = ${lo}`
      for (let i = 0; i < 50 && (yield* left)[0]!.n > 0; i++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
        yield* repo.expandChunk(2)
      }
      expect((yield* left)[0]!.n).toBe(0)
      expect((yield* snapshot).all).toEqual(before.all)
      expect(yield* repo.head).toBeGreaterThanOrEqual(lo + 4)
    }).pipe(Effect.provide(EventsRepo.Default)))
})
