import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { Webhook } from "standardwebhooks"
import { ORDER_LOCK } from "../../../src/Realtime/EventsRepo.js"
import { Outbox } from "../../../src/Realtime/Outbox.js"
import { expectError, rawRequest } from "../../support/Raw.js"
import { emit, emitLoose, openSocket, RealtimeApp, receiver, waitFor, waitForEffect } from "../../support/Realtime.js"
import { createAgent, signUp } from "../../support/TestApp.js"
import { usingServer } from "../../support/TestDatabase.js"

const deliveries = (key: string) =>
  Effect.map(rawRequest("GET", "/api/agent/webhooks/deliveries", { key }), (r) => r.body.deliveries as Array<any>)

layer(RealtimeApp({ WEBHOOK_ALLOW_PRIVATE: "true" }), { excludeTestServices: true })("webhooks", (it) => {
  it.scoped("a webhook is signed so that an independent Standard Webhooks check verifies it", () =>
    Effect.gen(function*() {
      const hook = yield* receiver()
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      // empty body, no content type: accepted
      const rotated = yield* rawRequest("POST", "/api/account/webhook-secret", { key: agent.api_key })
      expect(rotated.status).toBe(200)
      expect(rotated.body.status).toBe("success")
      expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/)
      yield* rawRequest("PATCH", "/api/agent/profile", {
        key: agent.api_key,
        body: JSON.stringify({ webhook_url: hook.url })
      })
      yield* emit([agent.agent.id], "test.signed", { hello: "world", n: 1 })

      const req = yield* waitFor(
        "the signed webhook",
        () => hook.requests.find((r) => r.headers["x-service-event"] === "test.signed")
      )
      const payload = new Webhook(rotated.body.secret).verify(req.body, {
        "webhook-id": String(req.headers["webhook-id"]),
        "webhook-timestamp": String(req.headers["webhook-timestamp"]),
        "webhook-signature": String(req.headers["webhook-signature"])
      }) as any
      expect(payload).toMatchObject({ type: "test.signed", data: { hello: "world", n: 1 } })
      expect(payload.id).toBe(req.headers["webhook-id"])
      expect(payload.id).toMatch(/^evt_/)
      expect(req.headers["content-type"]).toBe("application/json")
      // a tampered body or another secret does not verify
      expect(() => new Webhook(rotated.body.secret).verify(req.body.replace("world", "w0rld"), req.headers as any))
        .toThrow()
      const other = (yield* rawRequest("POST", "/api/account/webhook-secret", { key: agent.api_key, body: "{}" }))
        .body.secret
      expect(other).not.toBe(rotated.body.secret)
      expect(() => new Webhook(other).verify(req.body, req.headers as any)).toThrow()

      // the PATCH that set the URL emitted profile.updated: delivered too, in the same log (the agent's own
      // presence.changed from its first call is announced up to PRESENCE_BATCH_LINGER later: delivered or not)
      const log = yield* waitForEffect(
        "both deliveries succeeded",
        Effect.map(
          deliveries(agent.api_key),
          (all) => {
            const ds = all.filter((d) => d.event_type !== "presence.changed")
            return ds.length === 2 && ds.every((d) => d.state === "succeeded") ? ds : undefined
          }
        )
      )
      expect(log.map((d) => d.event_type)).toEqual(["test.signed", "profile.updated"])
      expect(log[0].attempts).toHaveLength(1)
      expect(log[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null, url: hook.url })
      expect(log[0].next_attempt_at).toBeNull()
    }))

  it.scoped("an event's data is the same compact text on poll, replay, live frame and webhook body", () =>
    Effect.gen(function*() {
      const hook = yield* receiver()
      const human = yield* signUp()
      yield* rawRequest("PATCH", "/api/agent/profile", {
        key: human.api_key,
        body: JSON.stringify({ webhook_url: hook.url })
      })
      // keys that PostgreSQL's jsonb would reorder, nesting, escapes, non-ASCII, numbers
      const data = { zeta: 1, a: { y: "é \"q\"\n🐟", x: [1, 2.5, -3e-7, null, true] }, mid: {}, list: [] }
      const text = JSON.stringify(data)
      const frames: Array<string> = []
      const live = yield* openSocket({ key: human.api_key })
      live.ws.on("message", (d) => frames.push(d.toString()))
      const ready = yield* live.ready()
      yield* emit([human.user.id], "test.bytes", data)
      const frame = yield* waitFor("the live frame", () => frames.find((f) => f.includes("test.bytes")))
      const webhook = yield* waitFor(
        "the webhook",
        () => hook.requests.find((r) => r.headers["x-service-event"] === "test.bytes")
      )
      const polled = yield* rawRequest("GET", `/api/agent/events?after=${ready.cursor}`, { key: human.api_key })
      const replayedFrames: Array<string> = []
      const replay = yield* openSocket({ key: human.api_key, query: `?after=${ready.cursor}` })
      replay.ws.on("message", (d) => replayedFrames.push(d.toString()))
      const replayed = yield* waitFor("the replayed frame", () => replayedFrames.find((f) => f.includes("test.bytes")))

      const dataText = (raw: string) => {
        const at = raw.indexOf("\"data\":")
        expect(at).toBeGreaterThan(0)
        return raw.slice(at + 7, at + 7 + text.length)
      }
      for (
        const [where, raw] of [["poll", polled.text], ["replay", replayed], ["live", frame], ["webhook", webhook.body]]
      ) {
        expect([where, dataText(raw!)]).toEqual([where, text])
      }
      // the hand-written page is the EventsPage the typed client knows
      const typed = yield* human.client.events.poll({ urlParams: { after: ready.cursor! } })
      expect(typed.events.find((e) => e.type === "test.bytes")?.data).toEqual(data)
      expect(polled.headers["content-type"]).toMatch(/^application\/json/)
      // the envelope itself: the webhook body is the frames' event, byte for byte
      const envelope = (f: string) => f.slice(f.indexOf("\"event\":") + 8, -1)
      expect(envelope(frame)).toBe(webhook.body)
      expect(envelope(replayed)).toBe(webhook.body)
    }))

  it.scoped("manual redelivery sends it again and logs the attempt; other accounts' deliveries are 404", () =>
    Effect.gen(function*() {
      const hook = yield* receiver()
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      yield* rawRequest("PATCH", "/api/agent/profile", {
        key: agent.api_key,
        body: JSON.stringify({ webhook_url: hook.url })
      })
      yield* emit([agent.agent.id], "test.again")
      const [first] = yield* waitForEffect(
        "delivery",
        Effect.map(deliveries(agent.api_key), (ds) => {
          const d = ds.filter((x) => x.event_type === "test.again" && x.state === "succeeded")
          return d.length === 1 ? d : undefined
        })
      )
      const retried = yield* rawRequest("POST", `/api/agent/webhooks/deliveries/${first.id}/retry`, {
        key: agent.api_key
      })
      expect(retried.status).toBe(200)
      expect(retried.body.delivery.id).toBe(first.id)
      yield* waitFor("the redelivery", () => {
        const got = hook.requests.filter((r) => r.headers["x-service-event"] === "test.again")
        return got.length === 2 ? got : undefined
      })
      const after = yield* waitForEffect(
        "two attempts logged",
        Effect.map(deliveries(agent.api_key), (ds) => {
          const d = ds.find((x) => x.id === first.id)
          return d?.attempts.length === 2 && d.state === "succeeded" ? d : undefined
        })
      )
      expect(after.attempts.map((a: any) => a.attempt)).toEqual([1, 2])

      const stranger = yield* signUp()
      expectError(
        yield* rawRequest("POST", `/api/agent/webhooks/deliveries/${first.id}/retry`, { key: stranger.api_key }),
        404,
        "not_found"
      )
      expectError(
        yield* rawRequest("POST", "/api/agent/webhooks/deliveries/not-a-uuid/retry", { key: agent.api_key }),
        404,
        "not_found"
      )
      expect(yield* deliveries(stranger.api_key)).toEqual([])
      expectError(yield* rawRequest("GET", "/api/agent/webhooks/deliveries"), 401, "unauthorized")
      expectError(yield* rawRequest("POST", "/api/account/webhook-secret"), 401, "unauthorized")
    }))

  // a server only: there emits take the order lock (see Outbox.ts); PGlite runs one transaction at a time
  it.scoped.skipIf(!usingServer())(
    "an event ordered after the webhook_url was set has its delivery, though its emit began before that commit",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* Outbox
        const hook = yield* receiver()
        const human = yield* signUp()
        const me = human.user.id
        const pid = sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.pipe(Effect.map((r) => r[0]!.pid))
        const waitingForLock = (pids: ReadonlyArray<number>) =>
          waitForEffect(
            "emits waiting for the order lock",
            Effect.map(
              sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks
                WHERE locktype = 'advisory' AND NOT granted AND pid IN ${sql.in(pids)}`,
              (r) => r[0]!.n === pids.length ? true : undefined
            )
          )
        // the order lock held by another session, so that the PATCH's pipelined COMMIT waits for it
        const release = yield* Deferred.make<void>()
        const locked = yield* Deferred.make<void>()
        const holder = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(${ORDER_LOCK})`
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(locked)
        // the PATCH's transaction: the URL stored, its event emitted, its pipelined COMMIT waiting for the order lock
        const setterPid = yield* Deferred.make<number>()
        const setter = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* sql`UPDATE users SET webhook_url = ${hook.url} WHERE id = ${me}`
          yield* emitLoose(outbox, [me], "test.set")
          yield* Deferred.succeed(setterPid, yield* pid)
        })))
        yield* waitingForLock([yield* Deferred.await(setterPid)])
        // two emits meanwhile, one in a transaction and one in a savepoint: both wait for the order lock behind
        // the PATCH's, and so come after test.set in the stream, their inserts seeing the URL it committed
        const plainPid = yield* Deferred.make<number>()
        const plain = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* Deferred.succeed(plainPid, yield* pid)
          yield* emitLoose(outbox, [me], "test.plain")
        })))
        const nestedPid = yield* Deferred.make<number>()
        const nested = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* Deferred.succeed(nestedPid, yield* pid)
          yield* sql.withTransaction(emitLoose(outbox, [me], "test.nested"))
        })))
        yield* waitingForLock([yield* Deferred.await(plainPid), yield* Deferred.await(nestedPid)])
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        yield* Fiber.join(setter)
        yield* Fiber.join(plain)
        yield* Fiber.join(nested)

        const rows = yield* sql<{ type: string; hooked: boolean }>`SELECT e.type,
            EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_cursor = e.cursor) AS hooked
          FROM events e WHERE e.recipient_id = ${me} ORDER BY e.cursor`
        expect(rows[0]).toEqual({ type: "test.set", hooked: true })
        expect(rows.slice(1).map((r) => r.type).sort()).toEqual(["test.nested", "test.plain"])
        expect(rows.filter((r) => !r.hooked)).toEqual([])
        // and they go out (the rows above are the point: a worker shared with other files' tests may be slower)
        yield* waitFor("the three deliveries", () => {
          const types = new Set(hook.requests.map((r) => String(r.headers["x-service-event"])))
          return ["test.set", "test.plain", "test.nested"].every((t) => types.has(t)) ? true : undefined
        }, 30_000)
      })
  )
})
