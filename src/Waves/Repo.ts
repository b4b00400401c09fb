import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Option, Schema } from "effect"
import { PersonRow } from "../Projects/PeopleRepo.js"

const at = (ms: number) => new Date(ms)

/** A task's place in an agent's hour: what the schedule, the clock and wave completion read. */
export const SlotRow = Schema.Struct({
  time: Schema.DateFromSelf,
  status: Schema.NullOr(Schema.Literal("completed", "missed")),
  task_id: Schema.NullOr(Ids.TaskId),
  title: Schema.NullOr(Schema.String),
  project_id: Schema.NullOr(Ids.ProjectId)
})
export type SlotRow = typeof SlotRow.Type

const UserRow = Schema.Struct({ ...PersonRow.fields, last_seen_at: Schema.NullOr(Schema.DateFromSelf) })

// a task holds a slot while it is assigned, scheduled and not closed
const live = "t.status NOT IN ('cancelled', 'archived')"

/** Slots (tasks' `wave_scheduled` plus the hours' outcomes), check-ins and the clock's claims. */
export class WavesRepo extends Effect.Service<WavesRepo>()("Waves/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const liveTask = sql.literal(live)

    /**
     * The last boundary `job` handled, locked for this transaction, when it is before `boundary`; none when it is
     * not, or when another process holds it (it is doing this very boundary: a hot standby skips, never waits).
     */
    const claim = (job: "hour" | "phase", boundary: number) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ done_at: Date }>`
          SELECT done_at FROM wave_clock WHERE job = ${job} FOR UPDATE SKIP LOCKED`
        const done = rows[0]?.done_at
        if (done === undefined || done.getTime() >= boundary) return Option.none<number>()
        yield* sql`UPDATE wave_clock SET done_at = ${at(boundary)} WHERE job = ${job}`
        return Option.some(done.getTime())
      }).pipe(Effect.orDie)

    /** Slots of `[from, to)` never completed become missed (the task they held is kept with them). */
    const markMissed = (from: number, to: number) =>
      sql`INSERT INTO wave_slots (agent_id, wave_time, status, task_id)
          SELECT DISTINCT ON (t.assigned_to_id, t.wave_scheduled) t.assigned_to_id, t.wave_scheduled, 'missed', t.id
          FROM tasks t
          WHERE t.wave_scheduled >= ${at(from)} AND t.wave_scheduled < ${at(to)} AND t.assigned_to_id IS NOT NULL
            AND ${liveTask}
          ORDER BY t.assigned_to_id, t.wave_scheduled, t.created_at
          ON CONFLICT (agent_id, wave_time) DO NOTHING`.pipe(Effect.orDie)

    /** Whoever has a task in the hour starting at `hour` (one task per agent: its oldest). */
    const startingAt = (hour: number) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ agent_id: Ids.UserId, handle: Ids.Handle, id: Ids.TaskId, title: Schema.String }),
        execute: () =>
          sql`SELECT DISTINCT ON (t.assigned_to_id) t.assigned_to_id AS agent_id, u.handle, t.id, t.title
          FROM tasks t JOIN users u ON u.id = t.assigned_to_id
          WHERE t.wave_scheduled = ${at(hour)} AND ${liveTask}
          ORDER BY t.assigned_to_id, t.created_at`
      })(undefined).pipe(Effect.orDie)

    const connectedAgents = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ id: Ids.UserId, handle: Ids.Handle }),
      execute: () =>
        sql`SELECT u.id, u.handle FROM presence p JOIN users u ON u.id = p.user_id
          WHERE p.state = 'connected' AND u.user_type = 'agent'`
    })(undefined).pipe(Effect.orDie)

    /** The agent's slots in `[from, to)`, by hour: its scheduled tasks with their outcome, and past outcomes. */
    const slots = (agent: Ids.UserId, from: number, to: number) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: SlotRow,
        execute: () =>
          sql`SELECT t.wave_scheduled AS time, s.status, t.id AS task_id, t.title, t.project_id
            FROM tasks t LEFT JOIN wave_slots s ON s.agent_id = t.assigned_to_id AND s.wave_time = t.wave_scheduled
            WHERE t.assigned_to_id = ${agent} AND t.wave_scheduled >= ${at(from)} AND t.wave_scheduled < ${at(to)}
              AND ${liveTask}
            UNION ALL
            SELECT s.wave_time, s.status, x.id, x.title, x.project_id
            FROM wave_slots s LEFT JOIN tasks x ON x.id = s.task_id
            WHERE s.agent_id = ${agent} AND s.wave_time >= ${at(from)} AND s.wave_time < ${at(to)}
              AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.assigned_to_id = s.agent_id
                AND t.wave_scheduled = s.wave_time AND ${liveTask})
            ORDER BY 1, 3`
      })(undefined).pipe(Effect.orDie)

    /** Serializes changes to one agent's slots (two schedulers racing for one hour). */
    const lockAgent = (agent: Ids.UserId) => sql`SELECT id FROM users WHERE id = ${agent} FOR UPDATE`.pipe(Effect.orDie)

    /** Takes every task of the agent out of the hour, except `keep`; their ids. */
    const vacate = (agent: Ids.UserId, hour: number, keep: Ids.TaskId | null, now: number) =>
      Effect.map(
        sql<{ id: Ids.TaskId }>`UPDATE tasks t SET wave_scheduled = NULL, updated_at = ${at(now)}
          WHERE t.assigned_to_id = ${agent} AND t.wave_scheduled = ${at(hour)} AND ${liveTask}
            AND (${keep}::uuid IS NULL OR t.id <> ${keep}::uuid)
          RETURNING t.id`,
        (rows) => rows.map((r) => r.id)
      ).pipe(Effect.orDie)

    const holders = (agent: Ids.UserId, hour: number) =>
      Effect.map(
        sql<{ id: Ids.TaskId }>`SELECT t.id FROM tasks t
          WHERE t.assigned_to_id = ${agent} AND t.wave_scheduled = ${at(hour)} AND ${liveTask}`,
        (rows) => rows.map((r) => r.id)
      ).pipe(Effect.orDie)

    /** Marks the hour completed; false when it already was. */
    const complete = (agent: Ids.UserId, hour: number, task: Ids.TaskId | null, now: number) =>
      Effect.map(
        sql<{ agent_id: string }>`
          INSERT INTO wave_slots (agent_id, wave_time, status, task_id, completed_at)
          VALUES (${agent}, ${at(hour)}, 'completed', ${task}, ${at(now)})
          ON CONFLICT (agent_id, wave_time) DO UPDATE
            SET status = 'completed', task_id = coalesce(EXCLUDED.task_id, wave_slots.task_id),
              completed_at = EXCLUDED.completed_at
            WHERE wave_slots.status <> 'completed'
          RETURNING agent_id`,
        (rows) => rows.length > 0
      ).pipe(Effect.orDie)

    /** The first check-in of the hour, or the earlier one's time. */
    const checkIn = (agent: Ids.UserId, hour: number, now: number) =>
      Effect.gen(function*() {
        const inserted = yield* sql<{ checked_in_at: Date }>`
          INSERT INTO wave_checkins (agent_id, wave_time, checked_in_at) VALUES (${agent}, ${at(hour)}, ${at(now)})
          ON CONFLICT DO NOTHING RETURNING checked_in_at`
        if (inserted.length > 0) return { first: true, at: inserted[0]!.checked_in_at }
        const rows = yield* sql<{ checked_in_at: Date }>`
          SELECT checked_in_at FROM wave_checkins WHERE agent_id = ${agent} AND wave_time = ${at(hour)}`
        return { first: false, at: rows[0]!.checked_in_at }
      }).pipe(Effect.orDie)

    /** The agents of `owner`; without an owner, the caller alone (if it exists). */
    const fleet = (caller: Ids.UserId, owner: Ids.UserId | null) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: UserRow,
        execute: () =>
          sql`SELECT id, handle, display_name, user_type, owner_id, last_seen_at FROM users
          WHERE ${owner === null ? sql`id = ${caller}` : sql`owner_id = ${owner} AND user_type = 'agent'`}
          ORDER BY created_at, handle`
      })(undefined).pipe(Effect.orDie)

    return {
      claim,
      markMissed,
      startingAt,
      connectedAgents,
      slots,
      lockAgent,
      vacate,
      holders,
      complete,
      checkIn,
      fleet
    } as const
  })
}) {}
