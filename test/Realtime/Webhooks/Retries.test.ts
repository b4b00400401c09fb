import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer, TestClock } from "effect"
import { Singletons } from "../../../src/main.js"
import { WebhookSecrets } from "../../../src/Realtime/Webhooks/Secrets.js"
import { WebhookWorkerLive } from "../../../src/Realtime/Webhooks/Worker.js"
import { rawRequest } from "../../support/Raw.js"
import { configLayer, emit, realSleep, RealtimeApp, receiver, waitFor, waitForEffect } from "../../support/Realtime.js"
import { createAgent, signUp, uniqueHandle } from "../../support/TestApp.js"
import { TestDatabase } from "../../support/TestDatabase.js"

// fewer periodic wake-ups for TestClock to step through
const config = {
  WEBHOOK_ALLOW_PRIVATE: "true",
  EVENT_POLL_INTERVAL: "10 minutes",
  HEARTBEAT_FLUSH_INTERVAL: "10 minutes",
  WS_PING_INTERVAL: "10 minutes"
}

const forEvent = (requests: ReadonlyArray<{ headers: Record<string, unknown> }>, type: string) =>
  requests.filter((r) => r.headers["x-service-event"] === type)

// TestClock drives the stored retry schedule
layer(RealtimeApp(config))("webhook retries", (it) => {
  it.scoped("a receiver answering 500 then 200 gets the event twice, and the log shows both attempts", () =>
    Effect.gen(function*() {
      const hook = yield* receiver((nth) => nth === 1 ? 500 : 200)
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      yield* rawRequest("PATCH", "/api/agent/profile", {
        key: agent.api_key,
        body: JSON.stringify({ webhook_url: hook.url })
      })
      yield* emit([agent.agent.id], "test.retry", { n: 1 })
      yield* waitFor("the first attempt", () => forEvent(hook.requests, "test.retry").length === 1 || undefined)

      const list = () =>
        Effect.map(
          rawRequest("GET", "/api/agent/webhooks/deliveries", { key: agent.api_key }),
          (r) => (r.body.deliveries as Array<any>).find((d) => d.event_type === "test.retry")
        )
      const pending = yield* waitForEffect(
        "the failed attempt logged",
        Effect.map(list(), (d) => d?.attempts.length === 1 ? d : undefined)
      )
      expect(pending.state).toBe("pending")
      expect(pending.attempts[0]).toMatchObject({ attempt: 1, status_code: 500, error: "HTTP 500" })
      expect(Date.parse(pending.next_attempt_at) - Date.parse(pending.attempts[0].attempted_at)).toBe(5_000)

      // not before the 5 s are up
      yield* TestClock.adjust("4 seconds")
      yield* realSleep(200)
      expect(forEvent(hook.requests, "test.retry")).toHaveLength(1)
      yield* TestClock.adjust("1 second")
      yield* waitFor("the second attempt", () => forEvent(hook.requests, "test.retry").length === 2 || undefined)
      const done = yield* waitForEffect(
        "the success logged",
        Effect.map(list(), (d) => d?.state === "succeeded" ? d : undefined)
      )
      expect(done.attempts.map((a: any) => [a.attempt, a.status_code])).toEqual([[1, 500], [2, 200]])
      expect(done.next_attempt_at).toBeNull()

      // and never again (the next retry would have been 5 minutes later)
      yield* TestClock.adjust("1 hour")
      yield* realSleep(200)
      expect(forEvent(hook.requests, "test.retry")).toHaveLength(2)
      const [a, b] = forEvent(hook.requests, "test.retry")
      expect(a!.headers["webhook-id"]).toBe(b!.headers["webhook-id"])
    }))
})

// a restart between attempts: the worker is stopped and a new one built over the same database
layer(
  Layer.merge(Singletons, WebhookSecrets.Default).pipe(
    Layer.provideMerge(TestDatabase),
    Layer.provide(configLayer(config))
  )
)(
  "webhook restart",
  (it) => {
    it.scoped("the retry schedule is stored: a new worker after a restart makes the next attempt", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const hook = yield* receiver((nth) => nth === 1 ? 503 : 200)
        const [user] = yield* sql<{ id: string }>`INSERT INTO users (handle, user_type, display_name, webhook_url)
        VALUES (${uniqueHandle("wh")}, 'agent', 'Hook', ${hook.url}) RETURNING id`
        const attempts = () =>
          sql<{ attempt: number; status_code: number | null }>`SELECT a.attempt, a.status_code FROM webhook_attempts a
          JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.user_id = ${user!.id} ORDER BY a.attempt`

        yield* Effect.scoped(Effect.gen(function*() {
          yield* Layer.build(WebhookWorkerLive)
          yield* emit([user!.id], "test.restart")
          yield* waitForEffect(
            "the first attempt logged",
            Effect.map(attempts(), (rows) => rows.length === 1 ? rows : undefined)
          )
        }))
        // the first worker is gone; its schedule is in the table
        yield* TestClock.adjust("10 seconds")
        yield* realSleep(200)
        expect(hook.requests).toHaveLength(1)

        yield* Effect.scoped(Effect.gen(function*() {
          yield* Layer.build(WebhookWorkerLive)
          const rows = yield* waitForEffect(
            "the second attempt logged",
            Effect.map(attempts(), (rows) => rows.length === 2 ? rows : undefined)
          )
          expect(rows).toEqual([{ attempt: 1, status_code: 503 }, { attempt: 2, status_code: 200 }])
        }))
        expect(hook.requests).toHaveLength(2)
        const [state] = yield* sql<{ state: string }>`SELECT state FROM webhook_deliveries WHERE user_id = ${user!.id}`
        expect(state!.state).toBe("succeeded")
      }))

    it.scoped(
      "a lease left by a process killed mid-attempt: the embedded database's next start sends at once, a server's after the lease",
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const hook = yield* receiver(() => 200)
          const [user] = yield* sql<{ id: string }>`INSERT INTO users (handle, user_type, display_name, webhook_url)
            VALUES (${uniqueHandle("wl")}, 'agent', 'Lease', ${hook.url}) RETURNING id`
          yield* emit([user!.id], "test.lease")
          // what a worker's claim leaves behind when its process dies before the attempt is recorded
          const now = yield* Clock.currentTimeMillis
          yield* sql`UPDATE webhook_deliveries SET locked_until = ${new Date(now + 45_000).toISOString()}::timestamptz
            WHERE user_id = ${user!.id}`
          yield* Effect.scoped(Effect.gen(function*() {
            yield* Layer.build(WebhookWorkerLive)
            if (process.env.DATABASE_URL) {
              // another node may still be sending it: it waits for the lease
              yield* realSleep(300)
              expect(hook.requests).toHaveLength(0)
              yield* TestClock.adjust("45 seconds")
            }
            yield* waitForEffect(
              "the delivery recorded",
              Effect.map(
                sql<{ state: string }>`SELECT state FROM webhook_deliveries WHERE user_id = ${user!.id}`,
                (rows) => rows[0]?.state === "succeeded" || undefined
              )
            )
          }))
          expect(hook.requests).toHaveLength(1)
        })
    )
  }
)
