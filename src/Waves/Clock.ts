import { SqlClient } from "@effect/sql"
import { Clock, Config, Duration, Effect, Layer } from "effect"
import { Outbox } from "../Realtime/Outbox.js"
import { Supervisor } from "../Supervisor.js"
import { iso, phaseAt, taskInWave, waveId } from "./Phase.js"
import { WavesRepo } from "./Repo.js"

/**
 * What the clock does at a phase boundary, each job in its own transaction behind a claim on its `wave_clock` row:
 * the first process to claim a boundary does it, others (and a retry) find it done. So with several processes on
 * one server each boundary is handled once, and one that was down at a boundary catches up when it starts.
 */
export const boundary = (now: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WavesRepo
    const outbox = yield* Outbox
    const phase = phaseAt(now)

    // the top of the hour: hours before it that were never completed are missed; this hour's slots start
    yield* Effect.gen(function*() {
      const claimed = yield* repo.claim("hour", phase.hour)
      if (claimed._tag === "None") return
      yield* repo.markMissed(claimed.value, phase.hour)
      const starting = yield* repo.startingAt(phase.hour)
      yield* outbox.emitMany(starting.map((s) => ({
        recipients: [s.agent_id],
        type: "wave.started" as const,
        data: taskInWave(s, phase.hour, s.handle)
      })))
    }).pipe(sql.withTransaction)

    // every boundary: the new phase, to the agents connected now
    yield* Effect.gen(function*() {
      const claimed = yield* repo.claim("phase", phase.start)
      if (claimed._tag === "None") return
      const agents = yield* repo.connectedAgents
      yield* outbox.emitMany(agents.map((a) => ({
        recipients: [a.id],
        type: "wave.phase" as const,
        data: { wave_id: waveId(phase.hour, a.handle), state: phase.state, next_state_start: iso(phase.next) }
      })))
    }).pipe(sql.withTransaction)
  })

/**
 * One turn of the Wave clock's actor: handles the boundary it is in (catching up on what a stopped process left), then
 * sleeps on the Effect Clock to the next one (minute 0, 10, 50). A failed boundary (the database) is logged and
 * tried again shortly; the next boundary would also pick up a missed hour, since the hour is claimed at every
 * boundary until it succeeds. Anything else that dies ends the turn, and the supervisor starts the actor again.
 */
export const cycle = (retry: Duration.DurationInput) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const failed = yield* boundary(now).pipe(
      Effect.as(false),
      // the database failing (SqlError): the boundary is tried again shortly; a defect ends the turn
      Effect.catchAll((e) => Effect.as(Effect.logWarning("wave clock boundary failed; retrying", e), true))
    )
    // from the time now, not the time the work began: a boundary passed meanwhile is handled at once
    const after = yield* Clock.currentTimeMillis
    const phase = phaseAt(after)
    if (phase.start > phaseAt(now).start && !failed) return
    const wait = Duration.millis(phase.next - after)
    yield* Effect.sleep(failed ? Duration.min(retry, wait) : wait)
  })

/**
 * The Wave cycle's actor: one fiber of the process under the supervisor (`WAVE_CLOCK=false` turns it off, e.g. in
 * most test files). Several processes may run it: each boundary is claimed in the database, so it is done once.
 */
export const WaveClockLive = Layer.scopedDiscard(Effect.gen(function*() {
  if (!(yield* Config.boolean("WAVE_CLOCK").pipe(Config.withDefault(true)))) return
  const retry = yield* Config.duration("WAVE_CLOCK_RETRY").pipe(Config.withDefault(Duration.seconds(30)))
  const supervisor = yield* Supervisor
  yield* Effect.forkScoped(supervisor.forever("wave", "clock", cycle(retry)))
})).pipe(Layer.provide(WavesRepo.Default))
