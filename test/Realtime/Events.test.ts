import { HttpServer, Socket } from "@effect/platform"
import { NodeSocket } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { EventStream } from "@shoal/client"
import { Chunk, Effect, Fiber, Layer, Option, Stream } from "effect"
import { AgentHub } from "../../src/Realtime/AgentHub.js"
import { Outbox } from "../../src/Realtime/Outbox.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { emit, emitEvent, emitLoose, openSocket, realSleep, RealtimeApp, waitFor } from "../support/Realtime.js"
import { createAgent, signUp } from "../support/TestApp.js"

// live clock: the server behaves as deployed; WS_AUTH_TIMEOUT is shortened so the 4401 case stays quick (but long
// enough for a client on a loaded machine to send its first frame: 400 ms was not), and the
// send-buffer bound lowered so a stalled reader trips it without megabytes of test data
const app = RealtimeApp({ WS_AUTH_TIMEOUT: "2 seconds", WS_MAX_BUFFERED_BYTES: String(256 * 1024) })

layer(app, { excludeTestServices: true })("events", (it) => {
  it.effect("polling pages by after/limit in cursor order; without after it starts at the oldest event", () =>
    Effect.gen(function*() {
      // a human without agents: no presence events in its stream, only ours
      const human = yield* signUp()
      for (let i = 0; i < 5; i++) yield* emit([human.user.id], "test.poll", { i })
      const all = yield* rawRequest("GET", "/api/agent/events", { key: human.api_key })
      expect(all.status).toBe(200)
      expect(all.body.status).toBe("success")
      expect(all.body.events.map((e: any) => e.data.i)).toEqual([0, 1, 2, 3, 4])
      const cursors: Array<number> = all.body.events.map((e: any) => e.cursor)
      expect([...cursors].sort((a, b) => a - b)).toEqual(cursors)
      expect(all.body.next_cursor).toBe(cursors[4])
      const e0 = all.body.events[0]
      expect(e0.id).toMatch(/^evt_[0-9a-f]{32}$/)
      expect(e0.type).toBe("test.poll")
      expect(new Date(e0.created_at).toISOString()).toBe(e0.created_at)

      const page1 = yield* rawRequest("GET", "/api/agent/events?limit=2", { key: human.api_key })
      expect(page1.body.events.map((e: any) => e.data.i)).toEqual([0, 1])
      expect(page1.body.has_more).toBe(true)
      const page2 = yield* rawRequest("GET", `/api/agent/events?after=${page1.body.next_cursor}&limit=2`, {
        key: human.api_key
      })
      expect(page2.body.events.map((e: any) => e.data.i)).toEqual([2, 3])
      const page3 = yield* rawRequest("GET", `/api/agent/events?after=${page2.body.next_cursor}&limit=2`, {
        key: human.api_key
      })
      expect(page3.body.events.map((e: any) => e.data.i)).toEqual([4])
      expect(page3.body.has_more).toBe(false)
      const empty = yield* rawRequest("GET", `/api/agent/events?after=${page3.body.next_cursor}`, {
        key: human.api_key
      })
      expect(empty.body.events).toEqual([])
      expect(empty.body.next_cursor).toBe(page3.body.next_cursor)
    }))

  it.effect("polling errors: no key 401, bad key 401, limit over 500 or a bad cursor 400", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const none = yield* rawRequest("GET", "/api/agent/events")
      expectError(none, 401, "unauthorized")
      expect(none.headers["www-authenticate"]).toBe("Bearer")
      expectError(yield* rawRequest("GET", "/api/agent/events", { key: "sk_nope" }), 401, "unauthorized")
      for (const q of ["limit=501", "limit=0", "limit=x", "after=abc", "after=-1", "after=1.5"]) {
        expectError(yield* rawRequest("GET", `/api/agent/events?${q}`, { key: human.api_key }), 400, "invalid_request")
      }
      expect((yield* rawRequest("GET", "/api/agent/events?limit=500", { key: human.api_key })).status).toBe(200)
    }))

  it.scoped("a cursor ahead of the newest event is a 400 on poll and on the upgrade; one from another node is not", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      yield* emit([human.user.id], "test.head", { n: 1 })
      const polled = yield* rawRequest("GET", "/api/agent/events", { key: human.api_key })
      const mine: number = polled.body.events[polled.body.events.length - 1].cursor
      // at the head (or behind it): fine, nothing new
      const atHead = yield* rawRequest("GET", `/api/agent/events?after=${mine}`, { key: human.api_key })
      expect(atHead.status).toBe(200)
      expect(atHead.body.next_cursor).toBe(mine)

      // as after a data reset: a client comes back with a cursor this stream never reached
      const ahead = 1_000_000_000_000
      const error = expectError(
        yield* rawRequest("GET", `/api/agent/events?after=${ahead}`, { key: human.api_key }),
        400,
        "invalid_request"
      )
      expect(error.message).toMatch(/ahead of the newest event/)
      expect(error.details).toMatchObject({ field: "after" })
      for (const via of ["bearer", "frame"] as const) {
        const socket = yield* openSocket({ key: human.api_key, via, query: `?after=${ahead}` })
        yield* socket.waitClosed()
        expect(socket.opened).toBe(false)
        expect(socket.rejected?.status).toBe(400)
        expect(socket.rejected?.body.error.code).toBe("invalid_request")
        expect(socket.rejected?.body.error.message).toMatch(/ahead of the newest event/)
        expect(socket.rejected?.body.error.details).toMatchObject({ field: "after" })
      }

      // another node's commit, not yet seen by this node's dispatcher: its cursor is a valid resume point
      const sql = yield* SqlClient.SqlClient
      const [other] = yield* sql<{ cursor: string }>`
        INSERT INTO events (cursor, id, recipient_id, type, data)
        VALUES (nextval('events_cursor_seq'), 'evt_othernode', ${human.user.id}, 'test.othernode', '{}')
        RETURNING cursor::text AS cursor`
      const otherCursor = Number(other!.cursor)
      expect((yield* rawRequest("GET", `/api/agent/events?after=${otherCursor}`, { key: human.api_key })).status)
        .toBe(200)
      const resumed = yield* openSocket({ key: human.api_key, query: `?after=${otherCursor}` })
      yield* resumed.ready()
      expect(resumed.rejected).toBeUndefined()
      const replayed = yield* openSocket({ key: human.api_key, query: `?after=${mine}` })
      const [fromOther] = yield* replayed.waitEvents("test.othernode", 1)
      expect(fromOther!.cursor).toBe(otherCursor)
    }))

  it.scoped("events of a rolled-back transaction are never stored nor delivered", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const socket = yield* openSocket({ key: human.api_key })
      yield* socket.ready()
      const outbox = yield* Outbox
      const sql = yield* SqlClient.SqlClient
      const failed = yield* emitLoose(outbox, [human.user.id], "test.rolledback").pipe(
        Effect.zipRight(Effect.fail("abort")),
        sql.withTransaction,
        Effect.flip
      )
      expect(failed).toBe("abort")
      yield* emit([human.user.id], "test.committed")
      yield* socket.waitEvents("test.committed", 1)
      yield* realSleep(100)
      expect(socket.events("test.").map((f) => f.event!.type)).toEqual(["test.committed"])
      const polled = yield* rawRequest("GET", "/api/agent/events", { key: human.api_key })
      expect(polled.body.events.map((e: any) => e.type)).toEqual(["test.committed"])
      // the live frame (handed out from memory) is the stored event
      const [live] = socket.events("test.committed")
      const { cursor, ...envelope } = polled.body.events[0]
      expect(live!.cursor).toBe(cursor)
      expect(live!.event).toEqual(envelope)
    }))

  it.scoped("a socket that misses 100 events gets exactly those 100, in order, when it resumes with after", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const first = yield* openSocket({ key: human.api_key })
      yield* first.ready()
      yield* emit([human.user.id], "test.before")
      const [seen] = yield* first.waitEvents("test.before", 1)
      yield* first.close()

      for (let i = 0; i < 100; i++) yield* emit([human.user.id], "test.missed", { i })
      const again = yield* openSocket({ key: human.api_key, query: `?after=${seen!.cursor}` })
      const got = yield* again.waitEvents("test.", 100)
      yield* realSleep(100)
      expect(again.events("test.").map((f) => f.event!.data.i)).toEqual(Array.from({ length: 100 }, (_, i) => i))
      const cursors = got.map((f) => f.cursor!)
      expect(cursors.every((c, i) => i === 0 ? c > seen!.cursor! : c > cursors[i - 1]!)).toBe(true)

      // and it is live afterwards, with nothing sent twice
      yield* emit([human.user.id], "test.after")
      yield* again.waitEvents("test.after", 1)
      const all = again.events("test.").map((f) => f.cursor)
      expect(new Set(all).size).toBe(all.length)
    }))

  it.scoped("replay cuts over to live without a gap or a duplicate while events keep coming", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      for (let i = 0; i < 1_200; i += 100) {
        yield* emit([human.user.id], "test.seq.bulk", { i })
      }
      const polled = yield* rawRequest("GET", "/api/agent/events?limit=1", { key: human.api_key })
      const start = polled.body.events[0].cursor - 1
      const writer = yield* Effect.forEach(
        Array.from({ length: 60 }, (_, i) => i),
        (i) => emit([human.user.id], "test.seq.live", { i }),
        { discard: true }
      ).pipe(Effect.fork)
      const socket = yield* openSocket({ key: human.api_key, query: `?after=${start}` })
      yield* writer.await
      const got = yield* socket.waitEvents("test.seq.", 72)
      yield* realSleep(150)
      const frames = socket.events("test.seq.")
      expect(frames.length).toBe(72)
      expect(frames.slice(12).map((f) => f.event!.data.i)).toEqual(Array.from({ length: 60 }, (_, i) => i))
      const cursors = got.map((f) => f.cursor!)
      expect(cursors.every((c, i) => i === 0 || c > cursors[i - 1]!)).toBe(true)
    }))

  it.scoped("two sockets of one agent both receive; another agent's events never reach them", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const a = yield* createAgent(human.api_key)
      const b = yield* createAgent(human.api_key)
      const a1 = yield* openSocket({ key: a.api_key, via: "bearer" })
      const a2 = yield* openSocket({ key: a.api_key, via: "frame" })
      const b1 = yield* openSocket({ key: b.api_key, via: "x-api-key" })
      yield* Effect.all([a1.ready(), a2.ready(), b1.ready()])
      yield* emit([a.agent.id], "test.for-a", { n: 1 })
      yield* emit([b.agent.id], "test.for-b", { n: 2 })
      yield* emit([a.agent.id, b.agent.id], "test.for-both", { n: 3 })
      yield* Effect.all([a1.waitEvents("test.", 2), a2.waitEvents("test.", 2), b1.waitEvents("test.", 2)])
      yield* realSleep(150)
      const types = (s: typeof a1) => s.events("test.").map((f) => f.event!.type)
      expect(types(a1)).toEqual(["test.for-a", "test.for-both"])
      expect(types(a2)).toEqual(["test.for-a", "test.for-both"])
      expect(types(b1)).toEqual(["test.for-b", "test.for-both"])
      // one event per recipient: the same emission has a distinct id for each
      expect(a1.events("test.for-both")[0]!.event!.id).not.toBe(b1.events("test.for-both")[0]!.event!.id)
      // presence of a and b reaches their owner, not each other
      expect(a1.events("presence.").every((f) => f.event!.data.handle === a.agent.handle)).toBe(true)
    }))

  it.scoped("socket auth: bad header key is an HTTP 401; no or bad first frame closes 4401; ping gets pong", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const bad = yield* openSocket({ key: "sk_nope" })
      yield* bad.waitClosed()
      expect(bad.rejected?.status).toBe(401)
      expect(bad.rejected?.body.error.code).toBe("unauthorized")
      expect(bad.rejected?.headers["www-authenticate"]).toBe("Bearer")
      const badCursor = yield* openSocket({ key: human.api_key, query: "?after=abc" })
      yield* badCursor.waitClosed()
      expect(badCursor.rejected?.status).toBe(400)
      expect(badCursor.rejected?.body.error.code).toBe("invalid_request")

      const silent = yield* openSocket({})
      expect((yield* silent.waitClosed()).code).toBe(4401)
      const wrong = yield* openSocket({ key: "sk_wrong", via: "frame" })
      expect((yield* wrong.waitClosed()).code).toBe(4401)
      const notAuth = yield* openSocket({})
      yield* waitFor("open", () => notAuth.opened || undefined)
      notAuth.send({ type: "ping" })
      expect((yield* notAuth.waitClosed()).code).toBe(4401)

      const good = yield* openSocket({ key: human.api_key, via: "frame" })
      const ready = yield* good.ready()
      expect(typeof ready.cursor).toBe("number")
      good.send({ type: "ping" })
      yield* waitFor("pong", () => good.frames.find((f) => f.type === "pong"))
      good.send({ type: "ack", cursor: ready.cursor })
      good.send({ type: "nonsense" })
      yield* waitFor("error frame", () => good.frames.find((f) => f.type === "error"))
      expect(good.closed).toBeUndefined()

      const plain = yield* rawRequest("GET", "/api/agent/ws", { key: human.api_key })
      expectError(plain, 400, "invalid_request")
      // an Upgrade header without Connection: Upgrade is plain HTTP, not a handshake
      const half = yield* rawRequest("GET", "/api/agent/ws", { key: human.api_key, headers: { upgrade: "websocket" } })
      expectError(half, 400, "invalid_request")
    }))

  it.effect("PATCH /api/agent/profile emits profile.updated to the agent, in the same transaction", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      yield* rawRequest("PATCH", "/api/agent/profile", { key: agent.api_key, body: JSON.stringify({ bio: "hello" }) })
      const polled = yield* rawRequest("GET", "/api/agent/events", { key: agent.api_key })
      const updated = polled.body.events.filter((e: any) => e.type === "profile.updated")
      expect(updated).toHaveLength(1)
      expect(updated[0].data).toEqual({ handle: agent.agent.handle, fields: ["bio"] })
      // a refused PATCH emits nothing
      const refused = yield* rawRequest("PATCH", "/api/agent/profile", {
        key: agent.api_key,
        body: JSON.stringify({ bio: "x".repeat(2_001) })
      })
      expect(refused.status).toBe(400)
      const after = yield* rawRequest("GET", `/api/agent/events?after=${updated[0].cursor}`, { key: agent.api_key })
      expect(after.body.events.filter((e: any) => e.type === "profile.updated")).toHaveLength(0)
    }))

  it.scoped(
    "a consumer that stops reading is closed 4008 with its cursor, and resumes from it without loss",
    () =>
      Effect.gen(function*() {
        const human = yield* signUp()
        const hub = yield* AgentHub
        const slow = yield* openSocket({ key: human.api_key })
        yield* slow.ready()
        const tcp = (slow.ws as unknown as { _socket: import("node:net").Socket })._socket
        tcp.pause()
        const blob = "x".repeat(8 * 1024)
        const total = 1_200
        const outbox = yield* Outbox
        const sql = yield* SqlClient.SqlClient
        for (let i = 0; i < total; i += 200) {
          yield* Effect.forEach(
            Array.from({ length: 200 }, (_, j) => i + j),
            (n) => emitLoose(outbox, [human.user.id], "test.bulk", { n, blob }),
            { discard: true }
          ).pipe(sql.withTransaction)
        }
        const [head] = yield* sql<{ head: string }>`SELECT max(cursor)::text AS head FROM events`
        yield* waitFor("the dispatcher to hand everything out", () => hub.position() >= Number(head!.head) || undefined)
        yield* realSleep(500)
        tcp.resume()
        const closed = yield* slow.waitClosed()
        expect(closed.code).toBe(4008)
        const resumeAt = Number(/after=(\d+)/.exec(closed.reason)?.[1])
        const received = slow.events("test.bulk")
        expect(received.length).toBeGreaterThan(0)
        expect(received.length).toBeLessThan(total)
        expect(received[received.length - 1]!.cursor).toBe(resumeAt)

        const again = yield* openSocket({ key: human.api_key, query: `?after=${resumeAt}` })
        const rest = yield* again.waitEvents("test.bulk", total - received.length, 20_000)
        const all = [...received, ...rest].map((f) => f.event!.data.n)
        expect(all).toEqual(Array.from({ length: total }, (_, n) => n))
      }),
    60_000
  )

  it.scoped("the EventStream client reconnects after a dropped connection and resumes with no gap or repeat", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const hub = yield* AgentHub
      const server = yield* HttpServer.HttpServer
      const port = (server.address as HttpServer.TcpAddress).port
      const collected = yield* EventStream.make({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: human.api_key,
        initialBackoff: "50 millis"
      }).pipe(
        // the client only yields catalog events: one this test alone sends
        Stream.filterMap((f) => f.event.type === "message.received" ? Option.some(f.event.data) : Option.none()),
        Stream.take(12),
        Stream.runCollect,
        Effect.provide(NodeSocket.layerWebSocketConstructor),
        Effect.fork
      )
      // live from the first connection: wait until it is attached, then emit
      yield* waitFor("the client socket", () => hub.size() > 0 ? true : undefined)
      yield* realSleep(200)
      const message = (n: number) => ({ message_id: `m${n}`, sender_handle: "tester", content: String(n) })
      yield* emitEvent([human.user.id], "message.received", message(0))
      yield* realSleep(200)
      yield* hub.disconnect(human.user.id, 1012, "service restart")
      for (let n = 1; n < 12; n++) yield* emitEvent([human.user.id], "message.received", message(n))
      // generous: on a loaded machine the reconnect waits out its backoff and the socket auth linger
      const frames = Chunk.toReadonlyArray(yield* Fiber.join(collected).pipe(Effect.timeout("30 seconds")))
      expect(frames.map((data) => Number(data.content))).toEqual(Array.from({ length: 12 }, (_, n) => n))

      const refused = yield* EventStream.make({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "sk_nope" }).pipe(
        Stream.runDrain,
        Effect.provide(NodeSocket.layerWebSocketConstructor),
        Effect.flip,
        Effect.timeout("10 seconds")
      )
      expect(refused._tag).toBe("EventStreamError")

      // a cursor kept across a data reset: the client says so instead of retrying forever
      const ahead = yield* EventStream.make({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: human.api_key,
        after: 9_000_000_000,
        initialBackoff: "10 millis"
      }).pipe(
        Stream.runDrain,
        Effect.provide(NodeSocket.layerWebSocketConstructor),
        Effect.flip,
        Effect.timeout("10 seconds")
      )
      expect(ahead.reason).toBe("CursorAhead")
      expect(ahead.message).toContain("ahead of the newest event")
    }))

  it.scoped("the EventStream client bounds its buffer: a slow consumer still gets every event once, in order", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const server = yield* HttpServer.HttpServer
      const port = (server.address as HttpServer.TcpAddress).port
      const urls: Array<string> = []
      const counting = Layer.effect(
        Socket.WebSocketConstructor,
        Effect.map(Socket.WebSocketConstructor, (make) => (url: string, protocols?: string | Array<string>) => {
          urls.push(url)
          return make(url, protocols)
        })
      ).pipe(Layer.provide(NodeSocket.layerWebSocketConstructor))
      const total = 120
      const collected = yield* EventStream.make({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: human.api_key,
        // from the account's first event: nothing depends on when the first connection goes live
        after: 0,
        bufferSize: 8
      }).pipe(
        Stream.filter((f) => f.event.type === "mention.created"),
        Stream.mapEffect((f) => Effect.as(realSleep(5), f)),
        Stream.take(total),
        Stream.runCollect,
        Effect.provide(counting),
        Effect.fork
      )
      // committed together, so they arrive far faster than the consumer takes them
      const outbox = yield* Outbox
      const sql = yield* SqlClient.SqlClient
      yield* Effect.forEach(
        Array.from({ length: total }, (_, n) => n),
        (n) => outbox.emit([human.user.id], "mention.created", { post_id: String(n), author_handle: "t", content: "" }),
        { discard: true }
      ).pipe(sql.withTransaction)
      const frames = Chunk.toReadonlyArray(yield* Fiber.join(collected).pipe(Effect.timeout("30 seconds")))
      const posts = frames.map((f) => f.event.type === "mention.created" ? Number(f.event.data.post_id) : -1)
      expect(posts).toEqual(Array.from({ length: total }, (_, n) => n))
      const cursors = frames.map((f) => f.cursor)
      expect(cursors.every((c, i) => i === 0 || c > cursors[i - 1]!)).toBe(true)
      // the buffer filled: the client let go of the connection and came back for the rest
      expect(urls.length).toBeGreaterThan(1)
      expect(urls.slice(1).every((u) => /[?&]after=\d+/.test(u))).toBe(true)
    }))
})
