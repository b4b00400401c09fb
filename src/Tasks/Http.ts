import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, ShoalApi, Tasks as Api } from "@shoal/domain"
import { Effect } from "effect"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok, type RequestOf } from "../Http/RequestOf.js"
import { PublicUrl } from "../Identity/PublicUrl.js"
import { Tasks } from "../Tasks.js"
import { BalanceChanges } from "../Wallet/BalanceChanges.js"
import { TaskNotes } from "./Notes.js"
import { TaskPages } from "./Pages.js"
import { commentCreated, taskCompleted, toTaskDetail } from "./Wire.js"

/** The handlers both path forms share (`/api/agent/...` and the unprefixed one). */
const shared = Effect.gen(function*() {
  const tasks = yield* Tasks
  const notes = yield* TaskNotes
  const pages = yield* TaskPages
  const publicUrl = yield* Effect.orDie(PublicUrl)
  const balances = yield* BalanceChanges
  const caller = Auth.CurrentUser

  // a page of tasks is the hot read: its cached body goes out directly (the typed client still decodes TaskList)
  const listTasks = ({ path, urlParams }: RequestOf<"tasks", "listTasks">) =>
    Effect.flatMap(caller, (c) => pages.projectPage(c, path.project_id, urlParams)).pipe(
      Effect.map((body) => HttpServerResponse.uint8Array(body, { contentType: "application/json" }))
    )

  const createTask = ({ path, payload }: RequestOf<"tasks", "createTask">) =>
    Effect.flatMap(caller, (c) => tasks.create(c, path.project_id, payload)).pipe(Effect.map(ok(Api.TaskResponse)))

  const updateTask = ({ path, payload }: RequestOf<"tasks", "updateTask">) =>
    Effect.flatMap(caller, (c) => tasks.update(c, path.task_id, payload)).pipe(
      Effect.map(ok(Api.TaskResponse)),
      balances.tracked
    )

  const reschedule = ({ path, payload }: RequestOf<"tasks", "rescheduleTask">) =>
    Effect.flatMap(caller, (c) => tasks.reschedule(c, path.task_id, payload.wave_time)).pipe(
      Effect.map((r) =>
        new Api.Rescheduled({
          status: "success",
          task_id: path.task_id,
          wave_id: r.waveId,
          wave_time: r.waveTime,
          task: r.task
        }, true)
      )
    )

  const comment = ({ path, payload }: RequestOf<"tasks", "createComment">) =>
    Effect.flatMap(caller, (c) => notes.addComment(c, path.task_id, payload)).pipe(Effect.map(commentCreated))

  const checklist = ({ path, payload }: RequestOf<"tasks", "addChecklistItem">) =>
    Effect.flatMap(caller, (c) => notes.addItem(c, path.task_id, payload.text)).pipe(
      Effect.map((item) => new Api.ChecklistItemResponse({ status: "success", task_id: path.task_id, ...item }, true))
    )

  // the creating POSTs, each keyed by its Idempotency-Key (the same route name in both forms)
  const createTaskKeyed = (r: RequestOf<"tasks", "createTask">) =>
    balances.tracked(idempotent("createTask", Api.TaskResponse, createTask)(r))
  const commentKeyed = idempotent("createComment", Api.CommentCreated, comment)
  const checklistKeyed = idempotent("addChecklistItem", Api.ChecklistItemResponse, checklist)

  return {
    tasks,
    notes,
    publicUrl,
    balances,
    listTasks,
    createTaskKeyed,
    updateTask,
    reschedule,
    commentKeyed,
    checklistKeyed
  } as const
})

type DecideRequest = RequestOf<"tasks", "approveTask">

export const TasksHttpLive = HttpApiBuilder.group(ShoalApi, "tasks", (handlers) =>
  Effect.gen(function*() {
    const h = yield* shared
    const { notes, publicUrl, tasks } = h
    const decideWith = (decision: "approve" | "reject") => ({ path, payload }: DecideRequest) =>
      Effect.flatMap(Auth.CurrentUser, (c) => tasks[decision](c, path.task_id, payload.note)).pipe(
        Effect.map(({ amount, task }) =>
          new Api.Approved({
            status: "success",
            task_id: task.id,
            task_status: task.status,
            gem_bounty: amount,
            message: decision === "approve"
              ? `approved; ${amount} Gems released to the assignee's balance`
              : `rejected; the task is back in progress and its ${amount} Gems back in escrow`,
            task
          }, true)
        )
      )
    return handlers
      .handle("listTasks", h.listTasks)
      .handle("createTask", h.createTaskKeyed)
      .handle("myTasks", ({ urlParams }) =>
        Effect.flatMap(Auth.CurrentUser, (c) => tasks.listMine(c, urlParams)).pipe(
          Effect.map((r) => HttpServerResponse.unsafeJson({ status: "success", ...r }))
        ))
      .handle("getTask", ({ path }) =>
        Effect.flatMap(Auth.CurrentUser, (c) => tasks.get(c, path.task_id)).pipe(
          Effect.map((r) => toTaskDetail(publicUrl, r))
        ))
      .handle("updateTask", h.updateTask)
      .handle("patchTask", h.updateTask)
      .handle("completeTask", ({ path, payload }) =>
        Effect.flatMap(Auth.CurrentUser, (c) =>
          tasks.complete(c, path.task_id, payload.completion_note)).pipe(
            h.balances.tracked,
            Effect.map(taskCompleted)
          ))
      .handle(
        "approveTask",
        (r: DecideRequest) =>
          h.balances.tracked(idempotent("approveTask", Api.Approved, decideWith("approve"))(r))
      )
      .handle(
        "rejectTask",
        (r: DecideRequest) => h.balances.tracked(idempotent("rejectTask", Api.Approved, decideWith("reject"))(r))
      )
      .handle("rescheduleTask", h.reschedule)
      .handle("listComments", ({ path }) =>
        Effect.flatMap(Auth.CurrentUser, (c) => notes.comments(c, path.task_id)).pipe(
          Effect.map((comments) => new Api.CommentList({ status: "success", task_id: path.task_id, comments }, true))
        ))
      .handle("createComment", h.commentKeyed)
      .handle("createCommentPlural", h.commentKeyed)
      .handle("editComment", ({ path, payload }) =>
        Effect.flatMap(Auth.CurrentUser, (c) =>
          notes.editComment(c, path.task_id, path.comment_id, payload)).pipe(Effect.map(ok(Api.CommentEdited))))
      .handle("addChecklistItem", h.checklistKeyed)
      .handle("toggleChecklistItem", ({ path, payload }) =>
        Effect.flatMap(Auth.CurrentUser, (c) =>
          notes.toggleItem(c, path.task_id, path.item_id, payload.is_checked))
          .pipe(
            Effect.map((item) =>
              new Api.ChecklistItemResponse({ status: "success", task_id: path.task_id, ...item }, true)
            )
          ))
  })).pipe(withOnly(Tasks, TaskNotes, TaskPages, BalanceChanges, Idempotency, Auth.Authentication))

/** The unprefixed forms: the same handlers, and the same idempotency routes, so a key works across both forms. */
export const TasksShortHttpLive = HttpApiBuilder.group(ShoalApi, "tasksShort", (handlers) =>
  Effect.gen(function*() {
    const h = yield* shared
    return handlers
      .handle("listTasks", h.listTasks)
      .handle("createTask", h.createTaskKeyed)
      .handle("updateTask", h.updateTask)
      .handle("rescheduleTask", h.reschedule)
      .handle("createComment", h.commentKeyed)
      .handle("addChecklistItem", h.checklistKeyed)
  })).pipe(withOnly(Tasks, TaskNotes, TaskPages, BalanceChanges, Idempotency, Auth.Authentication))
