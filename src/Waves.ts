import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { Errors, Waves as Api, Work } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { Heartbeat } from "./Auth/Heartbeat.js"
import { Messages } from "./Messages.js"
import { PeopleRepo, uuid } from "./Projects/PeopleRepo.js"
import { Outbox } from "./Realtime/Outbox.js"
import { Presence } from "./Realtime/Presence.js"
import { Tasks } from "./Tasks.js"
import { TaskNotes } from "./Tasks/Notes.js"
import { TasksRepo } from "./Tasks/Repo.js"
import { oneOfTwoNames } from "./Tasks/TwoNames.js"
import { HOUR, hourOf, iso, parseWaveId, phaseAt, taskInWave, waveHour, waveId } from "./Waves/Phase.js"
import { WavesRepo } from "./Waves/Repo.js"
import { DAY, dayStart, slot, toSlots } from "./Waves/Slots.js"

/**
 * Waves: the running phase, check-in, the schedule (which reads and writes the tasks' `wave_scheduled`, the one
 * store of slot assignments), wave completion, heartbeat and fleet. The clock fiber is `Waves/Clock`.
 */
export class Waves extends Effect.Service<Waves>()("Waves", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WavesRepo
    const people = yield* PeopleRepo
    const tasksRepo = yield* TasksRepo
    const tasks = yield* Tasks
    const notes = yield* TaskNotes
    const outbox = yield* Outbox
    const heartbeat = yield* Heartbeat
    const presence = yield* Presence
    const messages = yield* Messages

    const status = Effect.map(Clock.currentTimeMillis, (now) => {
      const p = phaseAt(now)
      return {
        state: p.state,
        server_time: iso(now),
        remaining_seconds: Math.ceil((p.next - now) / 1000),
        next_state_start: iso(p.next),
        wave_time: iso(p.hour)
      }
    })

    const checkIn = Effect.fn("Waves.checkIn")(function*(caller: Auth.Principal) {
      const now = yield* Clock.currentTimeMillis
      const p = phaseAt(now)
      const r = yield* repo.checkIn(caller.id, p.hour, now)
      const id = waveId(p.hour, caller.handle)
      return {
        message: r.first
          ? `checked in to Wave ${id} (${p.state})`
          : `already checked in to Wave ${id} at ${r.at.toISOString()}`,
        already_checked_in: !r.first,
        wave_id: id,
        state: p.state,
        checked_in_at: r.at.toISOString()
      }
    })

    /** `me`, an id or a handle: the caller itself or an agent it owns (403 for anyone else's, 404 for nobody). */
    const resolve = (caller: Auth.Principal, ref: string) =>
      Effect.gen(function*() {
        const lower = ref.toLowerCase()
        const found = lower === "me"
          ? yield* people.byId(caller.id)
          : uuid.test(lower)
          ? yield* people.byId(lower as Ids.UserId)
          : yield* people.byHandle(lower)
        const user = yield* Effect.orElseFail(found, () =>
          new Errors.NotFound({ message: `no agent "${ref}"`, details: { field: "agent" } }))
        if (user.id !== caller.id && user.owner_id !== caller.id) {
          return yield* new Errors.Forbidden({ message: "only the agent itself or its owner can see its schedule" })
        }
        return user
      })

    const mySchedule = Effect.fn("Waves.mySchedule")(function*(caller: Auth.Principal, q: Api.ScheduleQuery) {
      const now = yield* Clock.currentTimeMillis
      const start = q.date !== undefined ? dayStart(q.date) : hourOf(now)
      const end = Work.capInstant(start + (q.range ?? 24) * HOUR)
      const rows = yield* repo.slots(caller.id, start, end)
      return { start_time: iso(start), end_time: iso(end), schedule: toSlots(rows, caller.handle, hourOf(now)) }
    })

    const daySchedule = Effect.fn("Waves.daySchedule")(
      function*(caller: Auth.Principal, ref: string, date: string | undefined) {
        const user = yield* resolve(caller, ref)
        const now = yield* Clock.currentTimeMillis
        const day = date ?? iso(now).slice(0, 10)
        const start = dayStart(day)
        const rows = yield* repo.slots(user.id, start, Work.capInstant(start + DAY))
        return new Api.DaySchedule({
          status: "success",
          agent_id: user.id,
          handle: user.handle,
          date: day,
          schedule: toSlots(rows, user.handle, hourOf(now)).map(slot)
        }, true)
      }
    )

    const setSlot = Effect.fn("Waves.setSlot")(function*(caller: Auth.Principal, ref: string, input: Api.SetSlot) {
      const user = yield* resolve(caller, ref)
      const now = yield* Clock.currentTimeMillis
      const hour = yield* waveHour(input.wave_time, hourOf(now), "wave_time is in a past hour")
      const id = waveId(hour, user.handle)
      const taskId = input.task_id
      if (taskId === null) {
        const cleared = yield* Effect.gen(function*() {
          yield* repo.lockAgent(user.id)
          return yield* repo.vacate(user.id, hour, null, now)
        }).pipe(sql.withTransaction, Effect.orDie)
        return { wave_id: id, wave_time: iso(hour), task_id: null, replaced_task_id: cleared[0] ?? null }
      }
      const task = yield* tasksRepo.visible(taskId, caller.id)
      const unschedulable = task.assigned_to_id !== user.id
        ? `the task is not assigned to ${user.handle}; assign it first`
        : task.status === "cancelled" || task.status === "archived"
        ? `the task is ${task.status}`
        : undefined
      if (unschedulable !== undefined) {
        return yield* new Errors.Unprocessable({ message: unschedulable, details: { field: "task_id" } })
      }
      const replaced = yield* Effect.gen(function*() {
        yield* repo.lockAgent(user.id)
        const others = (yield* repo.holders(user.id, hour)).filter((t) => t !== taskId)
        if (others.length > 0 && input.force !== true) {
          return yield* new Errors.Conflict({
            message: `the slot ${id} holds another task; send force: true to replace it`,
            details: { wave_id: id, task_id: others[0] }
          })
        }
        yield* repo.vacate(user.id, hour, taskId, now)
        yield* tasksRepo.setWave(taskId, new Date(hour), new Date(now))
        yield* outbox.emit([user.id], "wave.scheduled", taskInWave(task, hour, user.handle))
        return others[0] ?? null
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      return { wave_id: id, wave_time: iso(hour), task_id: taskId, replaced_task_id: replaced }
    })

    /** The hour `wave/complete` is about: the named one, or the active one (CONTRACT "Active wave"). */
    const waveOf = (caller: Auth.Principal, named: string | undefined, now: number) =>
      Effect.gen(function*() {
        const current = hourOf(now)
        if (named !== undefined) {
          const parsed = parseWaveId(named)
          if (parsed === undefined) {
            return yield* new Errors.InvalidRequest({
              message: "wave_id is YYYYMMDDHH followed by a handle",
              details: { field: "wave_id" }
            })
          }
          if (parsed.handle !== caller.handle) {
            return yield* new Errors.Forbidden({ message: "the wave_id names another agent's Wave" })
          }
          if (parsed.hour > current) {
            return yield* new Errors.Unprocessable({
              message: "that Wave has not started yet",
              details: { field: "wave_id" }
            })
          }
          const rows = yield* repo.slots(caller.id, parsed.hour, parsed.hour + HOUR)
          return { hour: parsed.hour, row: rows.find((r) => r.task_id !== null) ?? rows[0] }
        }
        const rows = yield* repo.slots(caller.id, current - 2 * HOUR, current + HOUR)
        const row = rows.find((r) => r.time.getTime() === current) ??
          [...rows].reverse().find((r) => r.status !== "completed")
        if (row === undefined) {
          return yield* new Errors.NotFound({
            message: "no active Wave: nothing scheduled this hour and no uncompleted slot in the past 2 hours"
          })
        }
        return { hour: row.time.getTime(), row }
      })

    const complete = Effect.fn("Waves.complete")(function*(caller: Auth.Principal, input: Api.WaveComplete) {
      const now = yield* Clock.currentTimeMillis
      const { hour, row } = yield* waveOf(caller, input.wave_id, now)
      const id = waveId(hour, caller.handle)
      const completed = new Errors.Conflict({ message: `Wave ${id} is already completed`, details: { wave_id: id } })
      if (row?.status === "completed") return yield* completed
      const taskId = row?.task_id ?? null
      const comment = yield* oneOfTwoNames("comment", input.comment, "notes", input.notes)
      if (taskId === null && (input.task_status !== undefined || comment !== undefined)) {
        return yield* new Errors.Unprocessable({
          message: `Wave ${id} has no task: task_status and comment need one`,
          details: { wave_id: id }
        })
      }
      const task = taskId === null
        ? undefined
        : yield* tasksRepo.visible(taskId, caller.id)
      return yield* Effect.gen(function*() {
        if (!(yield* repo.complete(caller.id, hour, taskId, now))) return yield* completed
        if (task !== undefined && input.task_status !== undefined) {
          if (input.task_status === "completed") yield* tasks.complete(caller, task.id)
          else yield* tasks.update(caller, task.id, { status: input.task_status })
        }
        const commentId = task !== undefined && comment !== undefined
          ? (yield* notes.addComment(caller, task.id, { content: comment })).comment.id
          : null
        // the DM to the task's owner (CONTRACT "Task owner"), committed with the completion: a human owning the agent,
        // or a fellow project member, gets it at once, anyone else a message request; an owner that cannot be
        // written to (NotFound or Unprocessable: an account gone meanwhile) costs the agent nothing: `message_id: null`
        const messageId = task !== undefined && input.notify_owner !== false && task.created_by_id !== caller.id
          ? yield* messages.send({
            from: caller.id,
            to: task.created_by_id,
            content: [
              `Wave ${id} complete on "${task.title}"`,
              input.task_status !== undefined ? `status: ${input.task_status}` : undefined,
              comment
            ].filter((s) => s !== undefined).join("\n")
          }).pipe(
            Effect.map((sent) => sent.id),
            Effect.catchAll((e) =>
              Effect.as(Effect.logWarning("wave complete: the task owner's DM was not sent", e), null)
            )
          )
          : null
        return { wave_id: id, task_id: taskId, comment_id: commentId, message_id: messageId }
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    })

    // the hottest call there is: no span, no query (the authentication middleware already counted the touch)
    const beatAt = (caller: Auth.Principal, now: number) => {
      const last = heartbeat.lastSeen(caller.id) ?? now
      return { last_heartbeat_at: iso(last), connected: now - last < presence.window, server_time: iso(now) }
    }
    const beat = (caller: Auth.Principal) => Effect.map(Clock.currentTimeMillis, (now) => beatAt(caller, now))

    const fleet = Effect.fn("Waves.fleet")(function*(caller: Auth.Principal) {
      const now = yield* Clock.currentTimeMillis
      const owner = caller.userType === "human" ? caller.id : caller.ownerId
      const rows = yield* repo.fleet(caller.id, owner)
      return rows.map((u) => {
        const last = Math.max(heartbeat.lastSeen(u.id) ?? 0, u.last_seen_at?.getTime() ?? 0)
        return {
          id: u.id,
          display_name: u.display_name,
          handle: u.handle,
          last_heartbeat_at: last === 0 ? null : iso(last),
          connected: last > 0 && now - last < presence.window,
          is_me: u.id === caller.id
        }
      })
    })

    return { status, checkIn, mySchedule, daySchedule, setSlot, complete, heartbeat: beat, fleet } as const
  }),
  dependencies: [WavesRepo.Default, TasksRepo.Default, PeopleRepo.Default, Messages.Default]
}) {}
