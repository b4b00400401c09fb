import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, type Ids, ShoalApi, Tasks as Api } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok, type RequestOf } from "../Http/RequestOf.js"
import { PublicUrl } from "../Identity/PublicUrl.js"
import { Tasks } from "../Tasks.js"
import { BalanceChanges } from "../Wallet/BalanceChanges.js"
import { TaskNotes } from "./Notes.js"
import type { ChecklistRow } from "./NotesRepo.js"
import { TaskPages } from "./Pages.js"
import { commentCreated, taskCompleted, toTaskDetail } from "./Wire.js"

const caller = currentUser
const itemAnswer = (task_id: Ids.TaskId) => (item: ChecklistRow) => ok(Api.ChecklistItemResponse)({ task_id, ...item })

/** The handlers both path forms share (`/api/agent/...` and the unprefixed one). */
const shared = Effect.gen(function*() {
  const tasks = yield* Tasks
  const notes = yield* TaskNotes
  const pages = yield* TaskPages
  const balances = yield* BalanceChanges

  // a page of tasks is the hot read: its cached body goes out directly (the typed client still decodes TaskList)
  const listTasks = ({ path, urlParams }: RequestOf<"tasks", "listTasks">) =>
    Effect.flatMap(caller, (c) => pages.projectPage(c, path.project_id, urlParams))

  const createTask = ({ path, payload }: RequestOf<"tasks", "createTask">) =>
    Effect.flatMap(caller, (c) => tasks.create(c, path.project_id, payload)).pipe(Effect.map(ok(Api.TaskResponse)))

  const updateTask = ({ path, payload }: RequestOf<"tasks", "updateTask">) =>
    Effect.flatMap(caller, (c) => tasks.update(c, path.task_id, payload)).pipe(
      Effect.map(ok(Api.TaskResponse)),
      balances.tracked
    )

  const reschedule = ({ path, payload }: RequestOf<"tasks", "rescheduleTask">) =>
    Effect.flatMap(caller, (c) => tasks.reschedule(c, path.task_id, payload.wave_time)).pipe(
      Effect.map((r) => ok(Api.Rescheduled)({ task_id: path.task_id, ...r }))
    )

  const comment = ({ path, payload }: RequestOf<"tasks", "createComment">) =>
    Effect.flatMap(caller, (c) => notes.addComment(c, path.task_id, payload)).pipe(Effect.map(commentCreated))

  const checklist = ({ path, payload }: RequestOf<"tasks", "addChecklistItem">) =>
    Effect.flatMap(caller, (c) => notes.addItem(c, path.task_id, payload.text)).pipe(
      Effect.map(itemAnswer(path.task_id))
    )

  // the creating POSTs, each keyed by its Idempotency-Key (the same route name in both forms)
  return {
    tasks,
    notes,
    balances,
    listTasks,
    createTaskKeyed: (r: RequestOf<"tasks", "createTask">) =>
      balances.tracked(idempotent("createTask", Api.TaskResponse, createTask)(r)),
    updateTask,
    reschedule,
    commentKeyed: idempotent("createComment", Api.CommentCreated, comment),
    checklistKeyed: idempotent("addChecklistItem", Api.ChecklistItemResponse, checklist)
  } as const
})

type DecideRequest = RequestOf<"tasks", "approveTask">

export const TasksHttpLive = HttpApiBuilder.group(ShoalApi, "tasks", (handlers) =>
  Effect.gen(function*() {
    const h = yield* shared
    const { balances, notes, tasks } = h
    const publicUrl = yield* Effect.orDie(PublicUrl)
    const decideWith = (decision: "approve" | "reject") => ({ path, payload }: DecideRequest) =>
      Effect.flatMap(caller, (c) => tasks[decision](c, path.task_id, payload.note)).pipe(
        Effect.map(({ amount, task }) =>
          ok(Api.Approved)({
            task_id: task.id,
            task_status: task.status,
            gem_bounty: amount,
            message: decision === "approve"
              ? `approved; ${amount} Gems released to the assignee's balance`
              : `rejected; the task is back in progress and its ${amount} Gems back in escrow`,
            task
          })
        )
      )
    return handlers
      .handle("listTasks", h.listTasks)
      .handle("createTask", h.createTaskKeyed)
      .handle("myTasks", ({ urlParams }) =>
        Effect.flatMap(caller, (c) => tasks.listMine(c, urlParams)).pipe(
          Effect.map((r) => HttpServerResponse.unsafeJson({ status: "success", ...r }))
        ))
      .handle("getTask", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          tasks.get(c, path.task_id)).pipe(Effect.map((r) => toTaskDetail(publicUrl, r))))
      .handle("updateTask", h.updateTask)
      .handle("patchTask", h.updateTask)
      .handle("completeTask", ({ path, payload }) =>
        Effect.flatMap(caller, (c) =>
          tasks.complete(c, path.task_id, payload.completion_note)).pipe(
            balances.tracked,
            Effect.map(taskCompleted)
          ))
      .handle("approveTask", (r) =>
        balances.tracked(idempotent("approveTask", Api.Approved, decideWith("approve"))(r)))
      .handle("rejectTask", (r) =>
        balances.tracked(idempotent("rejectTask", Api.Approved, decideWith("reject"))(r)))
      .handle("rescheduleTask", h.reschedule)
      .handle("listComments", ({ path }) =>
        Effect.flatMap(caller, (c) =>
          notes.comments(c, path.task_id)).pipe(
            Effect.map((comments) => ok(Api.CommentList)({ task_id: path.task_id, comments }))
          ))
      .handle("createComment", h.commentKeyed)
      .handle("createCommentPlural", h.commentKeyed)
      .handle("editComment", ({ path, payload }) =>
        Effect.flatMap(caller, (c) =>
          notes.editComment(c, path.task_id, path.comment_id, payload)).pipe(
            Effect.map(ok(Api.CommentEdited))
          ))
      .handle("addChecklistItem", h.checklistKeyed)
      .handle("toggleChecklistItem", ({ path, payload }) =>
        Effect.flatMap(caller, (c) =>
          notes.toggleItem(c, path.task_id, path.item_id, payload.is_checked)).pipe(
            Effect.map(itemAnswer(path.task_id))
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
