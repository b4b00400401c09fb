import { SqlClient } from "@effect/sql"
import type { Auth, Ids, Tasks as Api } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { PublicUrl } from "./Identity/PublicUrl.js"
import { resolveAttribution } from "./Projects/Attribution.js"
import { PeopleRepo } from "./Projects/PeopleRepo.js"
import * as Policy from "./Projects/Policy.js"
import { ProjectsRepo } from "./Projects/Repo.js"
import { Outbox } from "./Realtime/Outbox.js"
import { pageOf, pageStart } from "./Social/Cursor.js"
import { makeAssignment } from "./Tasks/Assignment.js"
import * as Bounty from "./Tasks/Bounty.js"
import { makeBountyEvents } from "./Tasks/BountyEvents.js"
import { NotesRepo } from "./Tasks/NotesRepo.js"
import * as TaskPolicy from "./Tasks/Policy.js"
import { TasksRepo } from "./Tasks/Repo.js"
import { oneOfTwoNames } from "./Tasks/TwoNames.js"
import { taskPermalink, toTask, toTaskJson } from "./Tasks/Wire.js"
import { WalletClient } from "./Wallet/Client.js"
import { hourOf, taskInWave, waveHour } from "./Waves/Phase.js"

/** Tasks of projects: create, list, read, change, complete (with recurrence), reschedule into a Wave. */
export class Tasks extends Effect.Service<Tasks>()("Tasks", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* TasksRepo
    const projects = yield* ProjectsRepo
    const notes = yield* NotesRepo
    const people = yield* PeopleRepo
    const outbox = yield* Outbox
    // the wallet in this process (calls join the task's transaction) or in its own (calls made before or after it)
    const wallet = yield* WalletClient
    const local = <A, E>(effect: Effect.Effect<A, E>) => wallet.local ? effect : Effect.void
    const remote = <A, E>(effect: Effect.Effect<A, E>) => wallet.local ? Effect.void : effect
    const publicUrl = yield* Effect.orDie(PublicUrl)

    const { assign, assigneeOf, nextOccurrence } = yield* makeAssignment
    const bountyEvents = yield* makeBountyEvents

    // one cursor style for lists (the feed's): `cursor` in, `next_cursor` out; the legacy `page` still works
    const listing = (where: "project" | "assignee", id: string, q: Api.TaskListQuery) =>
      Effect.gen(function*() {
        const { limit, start } = yield* pageStart(q, 50)
        const rows = yield* repo.page(where, id, { ...start, status: q.status })
        // past the last page the count has no row to ride on: the first page's first row has it
        const first = { status: q.status, after: undefined, offset: 0, limit: 1 }
        const total = rows.length > 0 ? rows[0]!.total : start.after !== undefined || (q.page ?? 1) > 1
          ? yield* Effect.map(repo.page(where, id, first), (r) => r[0]?.total ?? 0)
          : 0
        const { next_cursor, page: tasks } = pageOf(rows, limit)
        return {
          tasks: tasks.map((r) => toTaskJson(publicUrl, r)),
          next_cursor,
          meta: { total, pages: Math.ceil(total / limit), page: q.page ?? 1, limit }
        }
      })

    /** One page of a project's tasks: the access check and the page, two statements. */
    const listForProject = Effect.fn("Tasks.listForProject")(
      function*(caller: Auth.Principal, projectId: Ids.ProjectId, q: Api.TaskListQuery) {
        yield* projects.visible(projectId, caller.id)
        return yield* listing("project", projectId, q)
      }
    )

    const listMine = Effect.fn("Tasks.listMine")((caller: Auth.Principal, q: Api.TaskListQuery) =>
      listing("assignee", caller.id, q)
    )

    const create = Effect.fn("Tasks.create")(
      function*(caller: Auth.Principal, projectId: Ids.ProjectId, input: Api.NewTask) {
        const deadline = yield* oneOfTwoNames("deadline", input.deadline, "due_date", input.due_date)
        const project = yield* projects.visible(projectId, caller.id)
        yield* Policy.requireParticipant(project, "create tasks")
        if ((input.gem_bounty ?? 0) > 0) yield* Bounty.requireFunder(caller)
        const assignee = yield* assigneeOf(caller, input)
        const attribution = yield* resolveAttribution(people, input)
        const now = new Date(yield* Clock.currentTimeMillis)
        const values = {
          title: input.title,
          description: input.description ?? "",
          status: "pending" as const,
          assigned_to_id: assignee?.id ?? null,
          recurrence: input.recurrence ?? null,
          priority: input.priority ?? null,
          deadline: deadline ?? null,
          // stored as its Wave hour
          wave_scheduled: input.wave_scheduled == null ? null : new Date(hourOf(Date.parse(input.wave_scheduled))),
          requested_by_id: attribution.id,
          gem_bounty: input.gem_bounty ?? 0
        }
        const prefunded = yield* Bounty.prefund(wallet, caller.id, input.gem_bounty ?? 0)
        const row = yield* Effect.gen(function*() {
          const id = (yield* repo.insert(projectId, caller.id, values, now, null, prefunded ?? null))!
          yield* notes.addItems(
            id,
            (input.checklists ?? []).map((i) => ({ ...i, is_checked: i.is_checked ?? false })),
            now
          )
          if (values.gem_bounty > 0) yield* local(wallet.fund(id, caller.id, values.gem_bounty))
          const row = yield* repo.reread(id)
          if (assignee != null) yield* assign(caller, row, project.title, assignee, now)
          return row
        }).pipe(
          sql.withTransaction,
          Effect.catchTag("SqlError", Effect.die),
          Bounty.unfundOnFailure(wallet, prefunded, caller.id)
        )
        return { task: toTask(publicUrl, row), warning: attribution.warning }
      }
    )

    const get = Effect.fn("Tasks.get")(function*(caller: Auth.Principal, id: Ids.TaskId) {
      const task = yield* repo.visible(id, caller.id)
      const [comments, checklist] = yield* Effect.all([notes.comments(id), notes.checklist(id)])
      return { task, comments, checklist, permalink: taskPermalink(publicUrl, task) }
    })

    const update = Effect.fn("Tasks.update")(function*(caller: Auth.Principal, id: Ids.TaskId, patch: Api.TaskPatch) {
      const deadline = yield* oneOfTwoNames("deadline", patch.deadline, "due_date", patch.due_date)
      const task = yield* repo.visible(id, caller.id)
      yield* Policy.requireParticipant(task, "change its tasks")
      let projectId = task.project_id
      let projectTitle = task.project_title
      if (patch.project_id !== undefined && patch.project_id !== task.project_id) {
        const dest = yield* projects.visible(patch.project_id, caller.id)
        yield* Policy.requireParticipant(dest, "receive tasks")
        yield* TaskPolicy.requireMove(caller, task, dest)
        projectId = dest.id
        projectTitle = dest.title
      }
      const assignee = yield* assigneeOf(caller, patch)
      if (assignee !== undefined) yield* TaskPolicy.requireAssign(caller, task, assignee?.id ?? null)
      const attribution = yield* resolveAttribution(people, patch)
      const status = patch.status ?? task.status
      const assignedTo = assignee === undefined ? task.assigned_to_id : assignee?.id ?? null
      yield* TaskPolicy.requireStatusChange(caller, task, status, assignedTo)
      const completing = status === "completed" && task.status !== "completed" && task.status !== "pending_approval"
      if (completing && task.gem_bounty > 0) {
        return yield* new Errors.Conflict({
          message: "a task with a Gem bounty is completed with POST /api/agent/tasks/<id>/complete"
        })
      }
      const bountyChange = patch.gem_bounty !== undefined && patch.gem_bounty !== task.gem_bounty
      if (bountyChange) yield* Bounty.requireFunder(caller)
      if (bountyChange) yield* TaskPolicy.requireBountyChange(caller, task)
      if (task.status === "pending_approval" && status !== "pending_approval" && !Bounty.burns(status)) {
        return yield* new Errors.Conflict({
          message: "the task awaits approval: approve or reject it (POST .../approve or .../reject), or cancel it"
        })
      }
      const closing = Bounty.burnDue(status, task)
      const now = new Date(yield* Clock.currentTimeMillis)
      if (bountyChange) yield* remote(wallet.fund(id, caller.id, patch.gem_bounty!))
      const row = yield* Effect.gen(function*() {
        if (bountyChange) yield* local(wallet.fund(id, caller.id, patch.gem_bounty!))
        yield* repo.update(id, {
          project_id: projectId,
          title: patch.title ?? task.title,
          description: patch.description ?? task.description,
          status,
          assigned_to_id: assignedTo,
          recurrence: patch.recurrence !== undefined ? patch.recurrence : task.recurrence,
          priority: patch.priority !== undefined ? patch.priority : task.priority,
          deadline: deadline !== undefined ? deadline : task.deadline,
          wave_scheduled: task.wave_scheduled === null ? null : new Date(task.wave_scheduled),
          requested_by_id: attribution.id ?? task.rb_id,
          completion_note: task.completion_note
        }, now)
        const row = yield* repo.reread(id)
        if (assignee != null && assignee.id !== task.assigned_to_id) {
          yield* assign(caller, row, projectTitle, assignee, now)
        } else if (row.assigned_to_id !== null && projectId !== task.project_id) {
          yield* projects.addMember(projectId, row.assigned_to_id, "member", now)
        }
        if (completing) yield* nextOccurrence(caller, { ...task, ...row, project_title: projectTitle }, now)
        if (closing) yield* local(wallet.burn(id, caller.id))
        return row
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      if (closing) yield* remote(wallet.burn(id, caller.id))
      const final = closing || bountyChange ? yield* repo.reread(id) : row
      // a bounty a cancel or archive burned: the response says so
      const burned = closing && task.gem_bounty > 0 && final.gem_bounty === 0
        ? { amount: task.gem_bounty, outcome: "burned" as const }
        : undefined
      return { task: toTask(publicUrl, final), warning: attribution.warning, bounty: burned }
    })

    const complete = Effect.fn("Tasks.complete")(function*(caller: Auth.Principal, id: Ids.TaskId, note?: string) {
      const task = yield* repo.visible(id, caller.id)
      // before the participant check: an outsider completing a gig is told to apply
      yield* TaskPolicy.requireCompleter(caller, task)
      yield* Policy.requireParticipant(task, "complete its tasks")
      if (task.status === "cancelled" || task.status === "archived") {
        return yield* new Errors.Conflict({
          message: `the task is ${task.status}; change its status before completing`
        })
      }
      const done = task.status === "completed" || task.status === "pending_approval"
      const now = new Date(yield* Clock.currentTimeMillis)
      const { next, row } = yield* Effect.gen(function*() {
        // conditional, so concurrent completions settle a bounty once: only the one that made the transition does
        if (!done && (yield* repo.markCompleted(id, Bounty.completionStatus(task), note ?? null, now))) {
          yield* local(Bounty.settleOnCompletion(wallet, task, caller))
          yield* bountyEvents.completed(caller, task, note)
        }
        // a retried completion finds the occurrence the first one made
        const next = yield* nextOccurrence(caller, task, now)
        return { next, row: yield* repo.reread(id) }
      }).pipe(sql.withTransaction, Effect.orDie)
      // in its own process the wallet settles after the commit; a retried completion settles it if that failed
      if (row.status === "pending_approval") yield* remote(Bounty.settleOnCompletion(wallet, task, caller))
      return { task: toTask(publicUrl, row), next: next === undefined ? null : toTask(publicUrl, next) }
    })

    const reschedule = Effect.fn("Tasks.reschedule")(function*(caller: Auth.Principal, id: Ids.TaskId, at: string) {
      const task = yield* repo.visible(id, caller.id)
      if (task.assigned_to_id !== caller.id) {
        return yield* new Errors.Forbidden({ message: "only the task's assignee can reschedule it" })
      }
      const nowMs = yield* Clock.currentTimeMillis
      const hour = yield* waveHour(at, nowMs + 1, "wave_time must be in the future")
      const scheduled = taskInWave(task, hour, caller.handle)
      const row = yield* Effect.gen(function*() {
        yield* repo.setWave(id, new Date(hour), new Date(nowMs))
        yield* outbox.emit([caller.id, task.created_by_id], "wave.scheduled", scheduled)
        return yield* repo.reread(id)
      }).pipe(sql.withTransaction, Effect.orDie)
      return { task: toTask(publicUrl, row), wave_id: scheduled.wave_id, wave_time: scheduled.wave_time }
    })

    /** Approve or reject a completed bounty task: the bounty's funder (Tasks/Policy). */
    const decide = (decision: "approve" | "reject") =>
      Effect.fn(`Tasks.${decision}`)(function*(caller: Auth.Principal, id: Ids.TaskId, note?: string) {
        const task = yield* repo.visible(id, caller.id)
        yield* TaskPolicy.requireApprover(caller, task)
        const now = new Date(yield* Clock.currentTimeMillis)
        // the note is kept: the ledger entry's note and a comment by the approver
        const kept = note !== undefined && note.trim() !== "" ? note : undefined
        const call = decision === "approve" ? wallet.approve(id, caller.id, kept) : wallet.reject(id, caller.id, kept)
        const decided = wallet.local ? undefined : yield* call
        const amount = yield* Effect.gen(function*() {
          const amount = decided ?? (yield* call)
          yield* repo.decide(id, decision === "approve" ? "completed" : "in_progress", now)
          yield* bountyEvents.decided(decision, caller, task, amount, note)
          if (kept !== undefined) {
            yield* notes.insertComment({
              task: id,
              author: caller.id,
              content: `${decision === "approve" ? "approved" : "rejected"}: ${kept}`,
              requestedBy: null,
              now
            })
          }
          return amount
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
        return { task: toTask(publicUrl, yield* repo.reread(id)), amount }
      })

    return {
      listForProject,
      listMine,
      create,
      get,
      update,
      complete,
      reschedule,
      approve: decide("approve"),
      reject: decide("reject")
    } as const
  }),
  dependencies: [TasksRepo.Default, ProjectsRepo.Default, NotesRepo.Default, PeopleRepo.Default]
}) {}
