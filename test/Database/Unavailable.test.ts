import { SqlClient } from "@effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Redacted } from "effect"
import Pg from "pg"
import WebSocket from "ws"
import * as Database from "../../src/Database/Database.js"
import { runMigrations } from "../../src/Database/Migrations.js"
import { makeProxy, type PgProxy, reachable } from "../support/PgProxy.js"
import { expectError, rawRequest, type RawResponse } from "../support/Raw.js"
import { wsUrl } from "../support/Realtime.js"
import { AppNode, configLayer, createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { TestDatabase, usingServer } from "../support/TestDatabase.js"

/**
 * The database failing under a running node: stopped (connection refused) or frozen (accepts, never answers),
 * played by a TCP proxy in front of the local PostgreSQL server, and an embedded database whose statement lock is
 * held too long. Every request that needs the database answers 503 `unavailable` with Retry-After within the
 * deadline (`DATABASE_TIMEOUT`), `/health` says so within about a second, and the node recovers by itself.
 */
const server = { host: "127.0.0.1", port: 5432 }
const serverUp = await reachable(server.host, server.port)
if (!serverUp) {
  console.warn(
    `skipping the PostgreSQL failure tests: no server at ${server.host}:${server.port} to put a proxy before`
  )
}
const admin = process.env.DATABASE_URL ?? `postgres://postgres@${server.host}:${server.port}/postgres`
const ownDatabase = process.env.DATABASE_URL ? undefined : `shoal_unavailable_${process.pid}_${Date.now() % 1e6}`
const databaseName = ownDatabase ?? new URL(admin).pathname.slice(1)

const adminQuery = async (text: string) => {
  const c = new Pg.Client({ connectionString: admin })
  await c.connect()
  try {
    await c.query(text)
  } finally {
    await c.end()
  }
}

beforeAll(async () => {
  if (!serverUp || ownDatabase === undefined) return
  await adminQuery(`CREATE DATABASE ${ownDatabase}`)
  const url = new URL(admin)
  url.pathname = `/${ownDatabase}`
  await Effect.runPromise(
    Effect.provide(runMigrations, Database.layerPg(Redacted.make(url.href))).pipe(Effect.scoped)
  )
})

afterAll(async () => {
  if (serverUp && ownDatabase !== undefined) await adminQuery(`DROP DATABASE IF EXISTS ${ownDatabase} WITH (FORCE)`)
})

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = Date.now()
    const value = yield* effect
    return { value, ms: Date.now() - start }
  })

const expectUnavailable = (res: RawResponse) => {
  const error = expectError(res, 503, "unavailable")
  expect(Number(res.headers["retry-after"])).toBeGreaterThan(0)
  return error
}

/** The app over the server, through a fresh proxy. */
const overProxy = <A, E, R>(config: Record<string, string>, body: (proxy: PgProxy) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const proxy = yield* makeProxy(server)
    const url = Redacted.make(`postgres://postgres@127.0.0.1:${proxy.port}/${databaseName}`)
    const app = AppNode(Database.layerPg(url)).pipe(Layer.provide(configLayer(config)))
    return yield* Effect.provide(body(proxy), app)
  }).pipe(Effect.scoped)

/** The status of a WebSocket upgrade that was refused, or "open". */
const upgradeStatus = (url: string, key: string) =>
  Effect.async<number | "open">((resume) => {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } })
    ws.once("open", () => {
      ws.close()
      resume(Effect.succeed("open"))
    })
    ws.once("unexpected-response", (_req, res) => {
      res.resume()
      resume(Effect.succeed(res.statusCode ?? 0))
      ws.terminate()
    })
    ws.once("error", () => {})
  })

const newAccount = () => ({ handle: uniqueHandle("db"), display_name: "Db" })
const signUpRaw = () => rawRequest("POST", "/api/accounts", { body: JSON.stringify(newAccount()) })

describe.skipIf(!serverUp)("a PostgreSQL server that fails under a running node", () => {
  it.live(
    "stopped: 503 unavailable with Retry-After at once, /health says unreachable, recovery without restart",
    () =>
      overProxy({ DATABASE_TIMEOUT: "2 seconds" }, (proxy) =>
        Effect.gen(function*() {
          const human = yield* signUp()
          expect((yield* rawRequest("GET", "/health")).status).toBe(200)
          const ws = yield* wsUrl()

          yield* Effect.promise(() => proxy.stop())
          const refused = yield* timed(signUpRaw())
          expectUnavailable(refused.value)
          expect(refused.ms).toBeLessThan(1500)
          // a keyed call whose key is cached still needs the database for its answer
          expectUnavailable(yield* rawRequest("GET", "/api/agent/me", { key: human.api_key }))
          // the event socket checks its key in the database before upgrading
          expect(yield* upgradeStatus(ws, human.api_key)).toBe(503)

          const health = yield* timed(rawRequest("GET", "/health"))
          const error = expectUnavailable(health.value)
          expect(error.message).toMatch(/unreachable/)
          expect(error.details).toMatchObject({ database: "down", reason: "unreachable" })
          expect(health.ms).toBeLessThan(1200)

          yield* Effect.promise(() => proxy.resume())
          expect((yield* signUpRaw()).status).toBe(201)
          expect((yield* rawRequest("GET", "/health")).status).toBe(200)
          expect(yield* upgradeStatus(ws, human.api_key)).toBe("open")
        })),
    30_000
  )

  it.live(
    "frozen: 503 unavailable past the deadline, /health times out within a second, recovery",
    () =>
      overProxy({ DATABASE_TIMEOUT: "2 seconds" }, (proxy) =>
        Effect.gen(function*() {
          yield* signUp()
          proxy.freeze()
          const stuck = yield* timed(signUpRaw())
          expectUnavailable(stuck.value)
          expect(stuck.ms).toBeLessThan(4500)

          const health = yield* timed(rawRequest("GET", "/health"))
          const error = expectUnavailable(health.value)
          expect(error.message).toMatch(/did not answer/)
          expect(error.details).toMatchObject({ database: "down", reason: "timeout" })
          expect(health.ms).toBeLessThan(1500)

          // the connections opened before the freeze stay silent for good: the pool must drop them by itself
          yield* Effect.promise(() => proxy.resume())
          let status = 0
          for (let i = 0; i < 5 && status !== 201; i++) status = (yield* signUpRaw()).status
          expect(status).toBe(201)
          expect((yield* rawRequest("GET", "/health")).status).toBe(200)
        })),
    60_000
  )
})

describe.skipIf(!serverUp)("a PostgreSQL outage under load", () => {
  it.live(
    "writes answer 201 or a fast 503 throughout; every acknowledged task survives and its event is delivered after",
    () =>
      overProxy({ DATABASE_TIMEOUT: "2 seconds", RATE_LIMIT_PER_MINUTE: "100000" }, (proxy) =>
        Effect.gen(function*() {
          const human = yield* signUp()
          const owner = yield* createAgent(human.api_key)
          const assignee = yield* createAgent(human.api_key)
          const project = yield* rawRequest("POST", "/api/agent/projects", {
            key: owner.api_key,
            body: JSON.stringify({ title: "outage" })
          })
          expect(project.status).toBe(201)
          const projectId = project.body.project.id as string

          const answers: Array<{ status: number; ms: number; id?: string }> = []
          let running = true
          let n = 0
          const worker = Effect.gen(function*() {
            while (running) {
              const sent = yield* timed(rawRequest("POST", `/api/agent/projects/${projectId}/tasks`, {
                key: owner.api_key,
                body: JSON.stringify({ title: `load ${n++}`, assigned_to: assignee.agent.handle })
              }))
              answers.push({ status: sent.value.status, ms: sent.ms, id: sent.value.body?.task?.id })
              // a refused client backs off a little, as Retry-After asks
              if (sent.value.status === 503) yield* Effect.sleep("100 millis")
            }
          })
          const load = yield* Effect.fork(Effect.all(Array.from({ length: 8 }, () => worker), { concurrency: 8 }))
          yield* Effect.sleep("1 second")
          yield* Effect.promise(() => proxy.stop())
          yield* Effect.sleep("3 seconds")
          yield* Effect.promise(() => proxy.resume())
          yield* Effect.sleep("3 seconds")
          running = false
          yield* load.await

          const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.id!)
          expect(answers.filter((a) => a.status !== 201 && a.status !== 503)).toEqual([])
          expect(answers.some((a) => a.status === 503)).toBe(true)
          // past the outage the writes go through again
          expect(answers.at(-1)?.status).toBe(201)
          // fast refusals: within the 2 s deadline and a margin, never a hang
          expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(4_000)

          // every page: a quiet machine creates more tasks in these seconds than one page of 1,000 holds
          const ids = new Set<string>()
          let cursor: string | null = null
          do {
            const listed: RawResponse = yield* rawRequest(
              "GET",
              `/api/agent/projects/${projectId}/tasks?limit=1000${
                cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
              }`,
              { key: owner.api_key }
            )
            for (const t of listed.body.tasks as Array<{ id: string }>) ids.add(t.id)
            cursor = listed.body.next_cursor ?? null
          } while (cursor !== null)
          expect(acknowledged.filter((id) => !ids.has(id))).toEqual([])

          // the dispatcher resumed: the assignee's events hold task.assigned for every acknowledged task
          const assigned = new Set<string>()
          let after = 0
          for (let i = 0; i < 100 && acknowledged.some((id) => !assigned.has(id)); i++) {
            const page = yield* rawRequest("GET", `/api/agent/events?after=${after}&limit=100`, {
              key: assignee.api_key
            })
            for (const e of page.body.events as Array<any>) if (e.type === "task.assigned") assigned.add(e.data.id)
            after = page.body.next_cursor
            if (!page.body.has_more) yield* Effect.sleep("100 millis")
          }
          expect(acknowledged.filter((id) => !assigned.has(id))).toEqual([])
        })),
    90_000
  )
})

describe("the embedded database", () => {
  it.live.skipIf(usingServer())(
    "a statement waiting for the lock past the deadline is a 503, then it recovers",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const done = yield* Deferred.make<void>()
        const held = yield* Deferred.make<void>()
        // a long transaction holds the statement lock
        yield* sql.withTransaction(Effect.zipRight(Deferred.succeed(held, undefined), Deferred.await(done))).pipe(
          Effect.forkScoped
        )
        yield* Deferred.await(held)

        const waited = yield* timed(signUpRaw())
        expectUnavailable(waited.value)
        expect(waited.ms).toBeGreaterThanOrEqual(900)
        expect(waited.ms).toBeLessThan(2500)
        const health = yield* timed(rawRequest("GET", "/health"))
        expect(expectUnavailable(health.value).details).toMatchObject({ database: "down", reason: "timeout" })
        expect(health.ms).toBeLessThan(1500)

        yield* Deferred.succeed(done, undefined)
        expect((yield* signUpRaw()).status).toBe(201)
        expect((yield* rawRequest("GET", "/health")).status).toBe(200)
      }).pipe(
        Effect.provide(AppNode(TestDatabase).pipe(Layer.provide(configLayer({ DATABASE_TIMEOUT: "1 second" })))),
        Effect.scoped
      ),
    30_000
  )
})
