import { SqlClient } from "@effect/sql"
import { Clock, Effect, Fiber, TestClock } from "effect"
import { cycle } from "../../src/Waves/Clock.js"
import { HOUR } from "../../src/Waves/Phase.js"
import { WavesRepo } from "../../src/Waves/Repo.js"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { realSleep, waitForEffect } from "../support/Realtime.js"

export { HOUR }
export const MINUTE = 60_000

/** An ISO hour `n` hours after `base`. */
export const hourIso = (base: number, n = 0) => new Date(base + n * HOUR).toISOString()

/**
 * Moves the test clock to the top of an hour later than anything this database's Wave clock has handled (suites
 * on a shared server, and earlier runs, leave their marks), plus `offset`. Returns that hour.
 */
export const freshHour = (offset = 0) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ t: Date }>`SELECT max(done_at) AS t FROM wave_clock`
    const stored = rows[0]?.t?.getTime() ?? 0
    // a small step from where the test clock is (a jump of years would make every periodic fiber catch up)
    const hour = Math.floor(Math.max(stored, yield* Clock.currentTimeMillis) / HOUR) * HOUR + 3 * HOUR
    yield* TestClock.setTime(hour + offset)
    return hour
  }).pipe(Effect.orDie)

/** One Wave clock fiber over the app's database and outbox (a second call is a second process's clock). */
export const startClock = Effect.fork(Effect.forever(cycle("1 second")).pipe(Effect.provide(WavesRepo.Default)))

export const stopClock = Fiber.interrupt

/** An agent with a project and a task assigned to itself. */
export const agentWithTask = Effect.gen(function*() {
  const { agent, human } = yield* humanWithAgent
  const project = yield* newProject(agent.client)
  const created = yield* agent.client.tasks.createTask({
    path: { project_id: project.id },
    payload: { title: "wave work", assigned_to: "me" },
    headers: {}
  })
  return { agent, human, project, task: created.task }
})

export const newTask = (
  agent: Effect.Effect.Success<typeof agentWithTask>["agent"],
  projectId: string,
  title: string
) =>
  Effect.map(
    agent.client.tasks.createTask({
      path: { project_id: projectId as any },
      payload: { title, assigned_to: "me" },
      headers: {}
    }),
    (r) => r.task
  )

/** The caller's events of `type`, oldest first. */
export const eventsOf = (key: string, type: string) =>
  Effect.map(
    rawRequest("GET", "/api/agent/events?limit=500", { key }),
    (res) => (res.body.events as Array<any>).filter((e) => e.type === type).map((e) => e.data)
  )

/** Waits (real time) until the caller has at least `n` events of `type`; returns them. */
export const untilEvents = (key: string, type: string, n: number) =>
  waitForEffect(
    `${n} × ${type}`,
    Effect.map(eventsOf(key, type), (es) => es.length >= n ? es : undefined)
  )

/** Lets the app's fibers finish what the last clock step started (they run on real I/O). */
export const settle = realSleep(400)
