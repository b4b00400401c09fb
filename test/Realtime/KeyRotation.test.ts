import { HttpServer } from "@effect/platform"
import { NodeSocket } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { EventStream } from "@shoal/client"
import { Context, Effect, Fiber, Layer, Stream } from "effect"
import { hashKey } from "../../src/Auth/Keys.js"
import { Pglite } from "../../src/Database/PgliteClient.js"
import { AgentHub } from "../../src/Realtime/AgentHub.js"
import { expectError, rawRequest } from "../support/Raw.js"
import {
  configLayer,
  emit,
  openSocket,
  realSleep,
  RealtimeApp,
  type TestSocket,
  waitFor,
  waitForEffect
} from "../support/Realtime.js"
import { AppNode } from "../support/TestApp.js"
import { createAgent, signUp } from "../support/TestApp.js"
import { TestDatabase, usingServer } from "../support/TestDatabase.js"

const rotated = /rotated/

const expectRotatedOut = (socket: TestSocket) =>
  Effect.map(socket.waitClosed(), (closed) => {
    expect(closed.code).toBe(4401)
    expect(closed.reason).toMatch(rotated)
  })

/** An open socket that keeps receiving: it answers a ping and gets an event emitted now. */
const expectLive = (socket: TestSocket, recipient: string, type: string) =>
  Effect.gen(function*() {
    yield* emit([recipient], type)
    yield* socket.waitEvents(type, 1)
    expect(socket.closed).toBeUndefined()
  })

/**
 * A second node on the same database: its own hub, key cache, notifier and HTTP server. Embedded, it shares this
 * file's PGlite session (one process); against a server it opens its own pool and LISTEN connection.
 */
const secondNode = Effect.gen(function*() {
  const shared = yield* Effect.context<SqlClient.SqlClient>()
  const database = usingServer()
    ? TestDatabase
    : Layer.succeedContext(Context.pick(SqlClient.SqlClient, Pglite)(shared as Context.Context<any>))
  return yield* Layer.build(AppNode(database).pipe(Layer.provide(configLayer({}))))
})

// live clock; the periodic key check is left at its default (minutes), so closes here come from the notices
layer(RealtimeApp(), { excludeTestServices: true })("key rotation", (it) => {
  it.scoped("the owner rotating an agent's key closes the agent's sockets 4401; its new key resumes with after", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const bearer = yield* openSocket({ key: agent.api_key })
      const framed = yield* openSocket({ key: agent.api_key, via: "frame" })
      const owner = yield* openSocket({ key: human.api_key })
      yield* Effect.all([bearer.ready(), framed.ready(), owner.ready()])
      yield* emit([agent.agent.id], "test.before")
      const [before] = yield* bearer.waitEvents("test.before", 1)

      const { api_key } = yield* human.client.accounts.rotateAgentKey({ path: { handle: agent.agent.handle } })
      yield* expectRotatedOut(bearer)
      yield* expectRotatedOut(framed)
      // the owner's own socket is another account's and another key
      yield* expectLive(owner, human.user.id, "test.owner")

      // the old key is refused at the upgrade now
      const stale = yield* openSocket({ key: agent.api_key })
      yield* stale.waitClosed()
      expect(stale.rejected?.status).toBe(401)

      yield* emit([agent.agent.id], "test.between")
      const fresh = yield* openSocket({ key: api_key, query: `?after=${before!.cursor}` })
      yield* fresh.waitEvents("test.between", 1)
      yield* expectLive(fresh, agent.agent.id, "test.after")
      expect(fresh.events("test.").map((f) => f.event!.type)).toEqual(["test.between", "test.after"])
    }))

  it.scoped("rotating one's own key closes only the sockets opened with it", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const mine = yield* openSocket({ key: human.api_key })
      const agents = yield* openSocket({ key: agent.api_key })
      yield* Effect.all([mine.ready(), agents.ready()])

      const res = yield* rawRequest("POST", "/api/account/api-key", { key: human.api_key })
      expect(res.status).toBe(200)
      yield* expectRotatedOut(mine)
      expectError(yield* rawRequest("GET", "/api/agent/me", { key: human.api_key }), 401, "unauthorized")
      yield* expectLive(agents, agent.agent.id, "test.agent")

      const fresh = yield* openSocket({ key: res.body.api_key, via: "frame" })
      yield* fresh.ready()
      yield* realSleep(200)
      yield* expectLive(fresh, human.user.id, "test.human")
    }))

  it.scoped("the EventStream client ends with EventStreamError saying the key was rotated", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const hub = yield* AgentHub
      const server = yield* HttpServer.HttpServer
      const port = (server.address as HttpServer.TcpAddress).port
      const stream = yield* EventStream.make({ baseUrl: `http://127.0.0.1:${port}`, apiKey: human.api_key }).pipe(
        Stream.runDrain,
        Effect.provide(NodeSocket.layerWebSocketConstructor),
        Effect.flip,
        Effect.fork
      )
      yield* waitFor("the client's socket", () => hub.keys().has(hashKey(human.api_key)) || undefined)
      yield* rawRequest("POST", "/api/account/api-key", { key: human.api_key })
      const error = yield* Fiber.join(stream).pipe(Effect.timeout("10 seconds"))
      expect(error._tag).toBe("EventStreamError")
      expect(error.message).toMatch(rotated)
    }))

  it.scoped("a socket opened with the new key stays open when the rotation's notice arrives after it", () =>
    Effect.gen(function*() {
      const hub = yield* AgentHub
      const human = yield* signUp()
      const old = yield* openSocket({ key: human.api_key })
      yield* old.ready()
      const res = yield* rawRequest("POST", "/api/account/api-key", { key: human.api_key })
      const fresh = yield* openSocket({ key: res.body.api_key })
      yield* fresh.ready()
      // the same notice again, late: it names the old key, so it closes nothing opened with the new one
      yield* hub.revoke(human.user.id, [hashKey(human.api_key)])
      yield* expectRotatedOut(old)
      yield* realSleep(200)
      yield* expectLive(fresh, human.user.id, "test.late")
    }))

  it.scoped("a socket whose key check read the key just before its revocation is closed as it attaches", () =>
    Effect.gen(function*() {
      const hub = yield* AgentHub
      const human = yield* signUp()
      // the notice is handled before the socket attaches, while the key still checks out in the database
      yield* hub.revoke(human.user.id, [hashKey(human.api_key)])
      const racing = yield* openSocket({ key: human.api_key })
      yield* expectRotatedOut(racing)
    }))

  it.scoped("a rotation on one node closes the sockets on another node and uncaches the old key there", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const other = yield* secondNode
      const onOther = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, other)

      // the other node has the key cached (a request) and a socket open with it
      expect((yield* onOther(rawRequest("GET", "/api/agent/me", { key: agent.api_key }))).status).toBe(200)
      const there = yield* onOther(openSocket({ key: agent.api_key }))
      yield* there.ready()

      const { api_key } = yield* human.client.accounts.rotateAgentKey({ path: { handle: agent.agent.handle } })
      yield* expectRotatedOut(there)
      // well within the cache's 30 s: the notice dropped the key there, not its expiry
      yield* waitForEffect(
        "the other node to refuse the old key",
        Effect.map(
          onOther(rawRequest("GET", "/api/agent/me", { key: agent.api_key })),
          (r) => r.status === 401 ? r : undefined
        ),
        5_000
      )

      const fresh = yield* onOther(openSocket({ key: api_key }))
      yield* fresh.ready()
      yield* realSleep(200)
      // emitted through this node's outbox, delivered by the other node's dispatcher
      yield* expectLive(fresh, agent.agent.id, "test.cross")
    }))
})

// no notice at all (a key revoked behind the API's back stands in for a notice lost with a LISTEN connection)
layer(
  RealtimeApp({ KEY_RECHECK_INTERVAL: "300 millis", KEY_CACHE_TTL: "300 millis" }),
  { excludeTestServices: true }
)("key check", (it) => {
  it.scoped("the periodic check closes sockets whose key was revoked without a notice, and only those", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const a = yield* signUp()
      const b = yield* signUp()
      const revoked = yield* openSocket({ key: a.api_key })
      const kept = yield* openSocket({ key: b.api_key })
      yield* Effect.all([revoked.ready(), kept.ready()])
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE key_hash = ${hashKey(a.api_key)}`
      yield* expectRotatedOut(revoked)
      yield* realSleep(700)
      yield* expectLive(kept, b.user.id, "test.kept")
    }))

  it.scoped("the periodic check closes sockets of a console session that expired, not the key's own", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const a = yield* signUp()
      const made = yield* rawRequest("POST", "/api/account/session", { key: a.api_key })
      const cookie = /shoal_session=[^;]*/.exec(made.headers["set-cookie"]!)![0]
      const bySession = yield* openSocket({ headers: { cookie, origin: "http://127.0.0.1" } })
      const byKey = yield* openSocket({ key: a.api_key })
      yield* Effect.all([bySession.ready(), byKey.ready()])
      // the session's time runs out: no sign-out, so no notice
      yield* sql`UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE key_hash = ${
        hashKey(a.api_key)
      }`
      const closed = yield* bySession.waitClosed()
      expect(closed.code).toBe(4401)
      expect(closed.reason).toMatch(/session ended/)
      yield* realSleep(700)
      yield* expectLive(byKey, a.user.id, "test.kept")
    }))

  it.scoped("a key revoked without a notice is refused once its cached read expires (KEY_CACHE_TTL); live ones keep serving", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const a = yield* signUp()
      const b = yield* signUp()
      const me = (key: string) => Effect.map(rawRequest("GET", "/api/agent/me", { key }), (r) => r.status)
      // both cached, then a's key revoked in the database alone: no notice, no local invalidation
      expect([yield* me(a.api_key), yield* me(b.api_key)]).toEqual([200, 200])
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE key_hash = ${hashKey(a.api_key)}`
      yield* waitForEffect(
        "the cached read to expire and the revoked key to be refused",
        Effect.map(me(a.api_key), (status) => status === 401 ? status : undefined),
        5_000
      )
      expect(yield* me(b.api_key)).toBe(200)
    }))

  it.scoped("a key rotated through the API is refused by the very next request, however long it was cached", () =>
    Effect.gen(function*() {
      const a = yield* signUp()
      for (let i = 0; i < 3; i++) {
        expect((yield* rawRequest("GET", "/api/agent/me", { key: a.api_key })).status).toBe(200)
      }
      // cached reads expire every 300 ms here, so right after one is read again only the rotation's own invalidation can refuse it now
      yield* realSleep(1_000)
      expect((yield* rawRequest("GET", "/api/agent/me", { key: a.api_key })).status).toBe(200)
      const res = yield* rawRequest("POST", "/api/account/api-key", { key: a.api_key })
      expect(res.status).toBe(200)
      expectError(yield* rawRequest("GET", "/api/agent/me", { key: a.api_key }), 401, "unauthorized")
      expect((yield* rawRequest("GET", "/api/agent/me", { key: res.body.api_key })).status).toBe(200)
    }))
})
