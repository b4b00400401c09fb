import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Clock, Context, Effect, Layer, TestClock } from "effect"
import { Heartbeat } from "../../src/Auth/Heartbeat.js"
import { HeartbeatRepo } from "../../src/Auth/HeartbeatRepo.js"
import { configLayer, realSleep, RealtimeApp, waitForEffect } from "../support/Realtime.js"
import { createAgent, signUp } from "../support/TestApp.js"

const FLUSH = "5 seconds"

/** A Heartbeat of its own (the production service and loops, the real repository), built in the test's scope. */
const heartbeatLayer = Heartbeat.DefaultWithoutDependencies.pipe(
  Layer.provide(HeartbeatRepo.Default),
  Layer.provide(configLayer({ HEARTBEAT_FLUSH_INTERVAL: FLUSH, HEARTBEAT_WRITE_GRAIN: "1 minute" }))
)

const stored = (id: Ids.UserId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ readonly t: Date | null }>`SELECT last_seen_at AS t FROM users WHERE id = ${id}`,
      (rows) => rows[0]?.t?.getTime()
    ))

/** One flush interval on the TestClock, then real time for the flush to land. */
const nextFlush = Effect.zipRight(TestClock.adjust(FLUSH), realSleep(200))

// the whole app runs on TestClock, so the test says when a flush interval and the write grain pass
layer(RealtimeApp({
  HEARTBEAT_FLUSH_INTERVAL: FLUSH,
  WS_PING_INTERVAL: "10 minutes",
  PRESENCE_SWEEP_INTERVAL: "1 minute",
  EVENT_POLL_INTERVAL: "10 minutes",
  WEBHOOK_WORKER: "false"
}))("heartbeat write grain", (it) => {
  it.effect(
    "an account's time is written at its first flush, then at most once a grain (always its newest), and at shutdown",
    () =>
      Effect.gen(function*() {
        const human = yield* signUp()
        // an agent that never calls itself: only this test's Heartbeat touches it
        const id = (yield* createAgent(human.api_key)).agent.id
        expect(yield* stored(id)).toBeUndefined()

        const last = yield* Effect.scoped(Effect.gen(function*() {
          const heartbeat = Context.get(yield* Layer.build(heartbeatLayer), Heartbeat)

          // first sighting: the next flush writes it
          const t0 = yield* Clock.currentTimeMillis
          heartbeat.seenAt(id, t0)
          yield* nextFlush
          expect(yield* waitForEffect("the first write", stored(id))).toBe(t0)

          // touched again within the grain: the flushes leave the stored time alone; memory has the newest
          yield* TestClock.adjust("10 seconds")
          const t1 = yield* Clock.currentTimeMillis
          heartbeat.seenAt(id, t1)
          for (let i = 0; i < 4; i++) yield* nextFlush
          expect(yield* stored(id)).toBe(t0)
          expect(heartbeat.lastSeen(id)).toBe(t1)

          // a grain after the write: a flush writes the newest time
          yield* TestClock.adjust("30 seconds")
          for (let i = 0; i < 3; i++) yield* nextFlush
          expect(yield* waitForEffect("the grain's write", Effect.map(stored(id), (t) => t === t1 || undefined)))
            .toBe(true)

          // touched within the grain once more, then shut down: the last flush writes it, due or not
          yield* TestClock.adjust("1 second")
          const t2 = yield* Clock.currentTimeMillis
          heartbeat.seenAt(id, t2)
          return t2
        }))
        expect(yield* stored(id)).toBe(last)
      })
  )
})
