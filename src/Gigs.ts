import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { Errors, Gigs as Api, Work } from "@shoal/domain"
import { DateTime, Effect, Option } from "effect"
import * as GigPolicy from "./Gigs/Policy.js"
import { type GigRow, GigsRepo } from "./Gigs/Repo.js"
import { PublicUrl } from "./Identity/PublicUrl.js"
import * as Policy from "./Projects/Policy.js"
import { ProjectsRepo } from "./Projects/Repo.js"
import { Outbox } from "./Realtime/Outbox.js"
import { cursorParam, pageOf } from "./Social/Cursor.js"
import { TasksRepo } from "./Tasks/Repo.js"
import { taskAssigned, taskPermalink } from "./Tasks/Wire.js"

const notAGig = (id: Ids.TaskId) => new Errors.NotFound({ message: `no open gig with id ${id}` })

/** CONTRACT "Gigs": list open gigs, apply once, the project's owner lists the applications and accepts one. */
export class Gigs extends Effect.Service<Gigs>()("Gigs", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* GigsRepo
    const tasks = yield* TasksRepo
    const projects = yield* ProjectsRepo
    const outbox = yield* Outbox
    const publicUrl = yield* Effect.orDie(PublicUrl)

    const toGig = ({ owner_handle, owner_id, owner_name, ...r }: GigRow) => ({
      ...r,
      permalink: taskPermalink(publicUrl, r),
      owner: new Work.Person({ id: owner_id, handle: owner_handle, display_name: owner_name }, true)
    })

    const list = (q: Api.GigQuery) =>
      Effect.gen(function*() {
        const limit = q.limit ?? 20
        const after = yield* cursorParam(q.cursor)
        const rows = yield* repo.list({ skill: q.skill, minBounty: q.min_bounty ?? 0, after, limit: limit + 1 })
        const { next_cursor, page } = pageOf(rows, limit)
        return new Api.GigList({
          status: "success",
          gigs: page.map((g) => new Api.Gig(toGig(g), true)),
          next_cursor
        }, true)
      })

    const apply = (caller: Auth.Principal, id: Ids.TaskId, input: Api.NewApplication) =>
      Effect.gen(function*() {
        const task = yield* tasks.visible(id, caller.id)
        if (task.visibility !== "public" || task.gem_bounty <= 0) return yield* notAGig(id)
        if (task.caller_role === "owner" || task.owns_owner) {
          return yield* new Errors.Forbidden({ message: "the project's owner cannot apply for its own gig" })
        }
        const at = yield* DateTime.nowAsDate
        return yield* Effect.gen(function*() {
          // decided under the transaction: assigned or finished meanwhile is no longer open
          if (!(yield* repo.isOpen(id))) {
            return yield* task.assigned_to_id !== null
              ? new Errors.Conflict({ message: "this gig already has an assignee" })
              : notAGig(id)
          }
          const appId = yield* repo.insert(id, caller.id, input.message ?? "", at)
          if (appId === undefined) {
            return yield* new Errors.Conflict({ message: "you have already applied for this gig" })
          }
          yield* outbox.emit([task.created_by_id], "gig.application", {
            task_id: id,
            application_id: appId,
            applicant_handle: caller.handle,
            message: input.message ?? ""
          })
          const row = yield* repo.byId(id, appId, at)
          return new Api.ApplicationResponse({
            status: "success",
            application: new Api.Application(Option.getOrThrow(row), true)
          }, true)
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      })

    const applications = (caller: Auth.Principal, id: Ids.TaskId) =>
      Effect.gen(function*() {
        const task = yield* tasks.visible(id, caller.id)
        yield* Policy.requireManager(task, "see a gig's applications")
        return yield* repo.forTask(id, yield* DateTime.nowAsDate)
      })

    const accept = (caller: Auth.Principal, id: Ids.TaskId, appId: Ids.ApplicationId) =>
      Effect.gen(function*() {
        const task = yield* tasks.visible(id, caller.id)
        yield* Policy.requireManager(task, "accept a gig's applications")
        yield* GigPolicy.requireAcceptable(task)
        const at = yield* DateTime.nowAsDate
        return yield* Effect.gen(function*() {
          const application = yield* Effect.flatMap(
            repo.byId(id, appId, at),
            Effect.orElseFail(() => new Errors.NotFound({ message: `no application ${appId} for task ${id}` }))
          )
          // decided by the update itself: assigned, closed or finished meanwhile is no longer open
          if (!(yield* repo.assign(id, application.applicant_id, at))) {
            return yield* GigPolicy.requireAcceptable(Option.getOrThrow(yield* tasks.byId(id)))
              .pipe(Effect.zipRight(new Errors.Conflict({ message: "this gig is no longer open" })))
          }
          yield* repo.settle(id, appId)
          // the applicant asked for it: a consented membership (CONTRACT "Direct messages")
          yield* projects.addMember(task.project_id, application.applicant_id, "member", at, true)
          yield* outbox.emit(
            [application.applicant_id],
            "task.assigned",
            taskAssigned(publicUrl, task, task.project_title, caller)
          )
          return Option.getOrThrow(yield* repo.byId(id, appId, at))
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      })

    return { list, apply, applications, accept } as const
  }),
  dependencies: [GigsRepo.Default, TasksRepo.Default, ProjectsRepo.Default]
}) {}
