import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Clock, Context, Effect, Layer, Metric, TestClock } from "effect"
import { Heartbeat } from "../src/Auth/Heartbeat.js"
import { HeartbeatRepo } from "../src/Auth/HeartbeatRepo.js"
import { actorRestarts } from "../src/Metrics/Metrics.js"
import { Supervisor } from "../src/Supervisor.js"
import { rawRequest } from "./support/Raw.js"
import { configLayer, emit, openSocket, realSleep, RealtimeApp, waitFor, waitForEffect } from "./support/Realtime.js"
import { createAgent, signUp } from "./support/TestApp.js"

const restarts = (kind: string) =>
  Effect.map(Metric.value(actorRestarts.pipe(Metric.tagged("kind", kind))), (state) => Number(state.count))

/** the kinds of the app's other loops: none of them restarts when the heartbeat flusher dies */
const siblings = ["dispatcher", "events", "notifier", "revocations", "directory", "hub", "key-cache", "database"]
const siblingRestarts = Effect.forEach(siblings, restarts)

const FLUSH = "5 seconds"

/**
 * A Heartbeat of its own (the production service and loops), over the real repository whose write dies while
 * `poison.left` is above zero: a defect no production path can cause, injected where the flusher meets the database.
 * Built in the test's scope, under the app's Supervisor (the one /health reads).
 */
const heartbeatWith = (poison: { left: number }) =>
  Heartbeat.DefaultWithoutDependencies.pipe(
    Layer.provide(
      Layer.effect(
        HeartbeatRepo,
        Effect.map(HeartbeatRepo, (real) =>
          HeartbeatRepo.make({
            saveLastSeen: (seen) =>
              Effect.suspend(() => {
                if (poison.left <= 0) return real.saveLastSeen(seen)
                poison.left--
                return Effect.die(new Error("injected defect in the heartbeat flush"))
              })
          }))
      ).pipe(Layer.provide(HeartbeatRepo.Default))
    ),
    Layer.provide(configLayer({ HEARTBEAT_FLUSH_INTERVAL: FLUSH }))
  )

const lastSeen = (id: Ids.UserId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ readonly t: Date | null }>`SELECT last_seen_at AS t FROM users WHERE id = ${id}`,
      (rows) => rows[0]?.t ?? undefined
    ))

/** One flush interval on the TestClock, then real time for the flush (or its death) and the backoff to land. */
const nextFlush = Effect.zipRight(
  TestClock.adjust(FLUSH),
  Effect.zipRight(realSleep(150), Effect.zipRight(TestClock.adjust("1 second"), realSleep(150)))
)

// the whole app runs on TestClock, so the test says when a flush interval and a restart's backoff pass
layer(RealtimeApp({
  HEARTBEAT_FLUSH_INTERVAL: FLUSH,
  WS_PING_INTERVAL: "10 minutes",
  PRESENCE_SWEEP_INTERVAL: "1 minute",
  EVENT_POLL_INTERVAL: "10 minutes",
  WEBHOOK_WORKER: "false"
}))("supervised loops", (it) => {
  it.scoped("a defect in the heartbeat flusher restarts that loop alone; the touches it held reach the database", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const id = agent.agent.id
      const poison = { left: 1 }
      const heartbeat = Context.get(yield* Layer.build(heartbeatWith(poison)), Heartbeat)
      const before = yield* restarts("heartbeat")
      const others = yield* siblingRestarts
      expect(yield* lastSeen(id)).toBeUndefined()

      yield* heartbeat.touch(id)
      const touchedAt = yield* Clock.currentTimeMillis
      // the first flush dies (and keeps what it was writing); the supervisor starts the flusher again
      yield* nextFlush
      expect(poison.left).toBe(0)
      yield* waitForEffect("the flusher's restart", Effect.map(restarts("heartbeat"), (n) => n > before || undefined))
      expect(yield* lastSeen(id)).toBeUndefined()
      // its successor's first flush writes the touch
      yield* nextFlush
      const seen = yield* waitForEffect("last_seen_at", lastSeen(id))
      expect(seen.getTime()).toBe(touchedAt)

      // one restart (the flusher; its sibling loop in the same service did not die), nothing stopped, and the
      // app's other loops neither restarted nor stopped working: an event still reaches a socket
      expect(yield* restarts("heartbeat")).toBe(before + 1)
      expect(yield* siblingRestarts).toEqual(others)
      expect(supervisor.stopped()).toEqual([])
      const socket = yield* openSocket({ key: agent.api_key })
      yield* socket.ready()
      yield* emit([id], "test.after", { n: 1 })
      yield* socket.waitEvents("test.", 1)
    }))

  it.scoped("a loop that keeps dying is stopped, and /health lists it", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor
      const human = yield* signUp()
      const poison = { left: Number.POSITIVE_INFINITY }
      const heartbeat = Context.get(yield* Layer.build(heartbeatWith(poison)), Heartbeat)
      expect((yield* rawRequest("GET", "/health")).body).not.toHaveProperty("actors_stopped")

      // each flush dies with the touch still pending; five deaths within a minute and the supervisor gives up
      yield* heartbeat.touch(human.user.id)
      for (let i = 0; i < 10 && supervisor.stopped().length === 0; i++) yield* nextFlush
      const stopped = yield* waitFor(
        "the flusher given up on",
        () => supervisor.stopped().find((a) => a.kind === "heartbeat" && a.key === "flush")
      )
      expect(stopped.restarts).toBe(4)
      expect(stopped.cause).toContain("injected defect in the heartbeat flush")
      // the other loops run on: only the flusher is listed
      expect(supervisor.stopped()).toHaveLength(1)

      const health = yield* rawRequest("GET", "/health")
      expect(health.status).toBe(200)
      expect(health.body).toMatchObject({
        status: "success",
        database: "up",
        actors_stopped: [{ kind: "heartbeat", key: "flush", restarts: 4, since: new Date(stopped.at).toISOString() }]
      })

      // a stopped loop stays stopped: no flush is tried any more
      const left = poison.left
      yield* nextFlush
      expect(poison.left).toBe(left)

      // the poison is lifted so the service's finalizer flushes what it holds
      poison.left = 0
    }))

  it.scoped("`every` waits `first`, then runs its turn every interval; a typed error is a warning, never a restart", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor
      const before = yield* restarts("test-every")
      const turns: Array<number> = []
      // every other turn fails with a typed error (what the database failing looks like to a sweep)
      const turn = Effect.flatMap(Clock.currentTimeMillis, (now) => {
        turns.push(now)
        return turns.length % 2 === 1 ? Effect.fail("database down") : Effect.void
      })
      const start = yield* Clock.currentTimeMillis
      yield* supervisor.every("test-every", "loop", "10 seconds", turn, { first: "2 seconds" })
      yield* realSleep(50)
      expect(turns).toEqual([])
      yield* TestClock.adjust("2 seconds")
      yield* waitFor("the first turn", () => turns.length === 1 || undefined)
      for (let i = 0; i < 3; i++) {
        yield* TestClock.adjust("10 seconds")
        yield* waitFor(`turn ${i + 2}`, () => turns.length === i + 2 || undefined)
      }
      expect(turns.map((t) => t - start)).toEqual([2_000, 12_000, 22_000, 32_000])
      expect(yield* restarts("test-every")).toBe(before)
      expect(supervisor.stopped().filter((a) => a.kind === "test-every")).toEqual([])
    }))
})
