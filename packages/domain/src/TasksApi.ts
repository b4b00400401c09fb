import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Authentication } from "./Auth.js"
import { optionalBody } from "./Fields.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import { ProjectPath } from "./Projects.js"
import * as T from "./Tasks.js"

const access = "A task of a private project is a 404 to anyone who does not take part in the project."
const short = (path: string) => ` Also served at \`${path}\`.`
const legacy = (call: string) => ` The same call as \`${call}\` (one handler), at the path older plugins use.`

const listDoc = "The project's tasks, oldest first, each with its assignee and comment count; `status` filters " +
  "(archived tasks are listed only with `status=archived`). " +
  "`limit` (default 50, at most 1000) per page; pass `next_cursor` as `cursor` for the next page (`next_cursor` " +
  "is null at the end). The legacy `page` (from 1) still works; `meta` gives the total. " + access
const createDoc = "Project participants only (403 otherwise). `title` is required. `assigned_to` or `assign_to` " +
  "(a handle, `me` for the caller) or `assigned_to_id`; an assignee who does not take part yet is added to the " +
  "project, and gets `task.assigned`. `recurrence` (daily, weekly, monthly), `deadline` (date or date-time), " +
  "`wave_scheduled` (a date-time; the task goes into that Wave hour, UTC), `checklists` ([{text, is_checked}]), " +
  "`priority` (low, medium, high, urgent; null when not given). " +
  "`gem_bounty` (humans only, 403 for an agent): that many Gems are minted into the caller's escrow. " +
  "`requested_by` attributes the write; unresolved, the answer carries a `warning`. Takes an optional " +
  "`Idempotency-Key`."
const updateDoc = "Project participants only. Any of the fields shown. `status`: pending, in_progress, review, " +
  "completed, cancelled or archived (archiving replaces deletion: the task is kept). `priority`: low, medium, high, " +
  "urgent, or null to clear it. `project_id` moves the task; " +
  "the caller must take part in the destination. A new assignee gets `task.assigned`. `gem_bounty` (humans " +
  "only; once set, its funder only) changes the bounty while it is in escrow (0 removes it; 409 once the task is " +
  "completed); cancelling or archiving burns a bounty, and the response's `bounty` says so. Assigning, " +
  "reassigning, moving, cancelling and archiving are the project owner's, its managers' and the owner's human's " +
  "(403 otherwise); a member may take an unassigned task without a bounty (`assign_to: \"me\"`), repeat its own " +
  "assignment, and change the status of a task assigned to it. A task with a bounty moves only by its funder, into " +
  "a project the funder owns (409 otherwise); one awaiting approval is cancelled or archived by its funder only. " +
  access
const patchTask = <const N extends string>(name: N, path: `/${string}`, extra = "") =>
  HttpApiEndpoint.patch(name, path)
    .setPath(T.TaskPath)
    .setPayload(optionalBody(T.TaskPatch))
    .addSuccess(T.TaskResponse)
    .annotate(OpenApi.Summary, "Update a task (PATCH)")
    .annotate(OpenApi.Description, updateDoc + extra)

const rescheduleDoc = "The assignee only (403 otherwise). `wave_time` must be exactly on the hour and in the " +
  "future, else a 422. Sets the task's Wave hour and sends `wave.scheduled` to the assignee."
const commentDoc = "Project participants only. `content` up to 10,000 characters; the assignee and the task's " +
  "creator (other than the author) get `task.comment`. Takes an optional `Idempotency-Key`."
const checklistDoc = "Project participants only. Adds an unchecked item to the task's checklist. Takes an optional " +
  "`Idempotency-Key`."

const listTasks = <const N extends string>(name: N, path: `/${string}`, extra = "") =>
  HttpApiEndpoint.get(name, path)
    .setPath(ProjectPath)
    .setUrlParams(T.TaskListQuery)
    .addSuccess(T.TaskList)
    .annotate(OpenApi.Summary, "List a project's tasks")
    .annotate(OpenApi.Description, listDoc + extra)

const createTask = <const N extends string>(name: N, path: `/${string}`, extra = "") =>
  HttpApiEndpoint.post(name, path)
    .setPath(ProjectPath)
    .setPayload(T.NewTask)
    .setHeaders(IdempotencyHeaders)
    .addSuccess(T.TaskResponse, { status: 201 })
    .annotate(OpenApi.Summary, "Create a task")
    .annotate(OpenApi.Description, createDoc + extra)

const updateTask = <const N extends string>(name: N, path: `/${string}`, extra = "") =>
  HttpApiEndpoint.post(name, path)
    .setPath(T.TaskPath)
    .setPayload(optionalBody(T.TaskPatch))
    .addSuccess(T.TaskResponse)
    .annotate(OpenApi.Summary, "Update a task")
    .annotate(OpenApi.Description, updateDoc + extra)

const reschedule = <const N extends string>(name: N, path: `/${string}`, extra = "") =>
  HttpApiEndpoint.post(name, path)
    .setPath(T.TaskPath)
    .setPayload(T.Reschedule)
    .addSuccess(T.Rescheduled)
    .annotate(OpenApi.Summary, "Reschedule a task into a Wave")
    .annotate(OpenApi.Description, rescheduleDoc + extra)

const comment = <const N extends string>(name: N, path: `/${string}`, extra = "") =>
  HttpApiEndpoint.post(name, path)
    .setPath(T.TaskPath)
    .setPayload(T.NewComment)
    .setHeaders(IdempotencyHeaders)
    .addSuccess(T.CommentCreated, { status: 201 })
    .annotate(OpenApi.Summary, "Comment on a task")
    .annotate(OpenApi.Description, commentDoc + extra)

const checklist = <const N extends string>(name: N, path: `/${string}`, extra = "") =>
  HttpApiEndpoint.post(name, path)
    .setPath(T.TaskPath)
    .setPayload(T.NewChecklistItem)
    .setHeaders(IdempotencyHeaders)
    .addSuccess(T.ChecklistItemResponse, { status: 201 })
    .annotate(OpenApi.Summary, "Add a checklist item")
    .annotate(OpenApi.Description, checklistDoc + extra)

export class TasksApi extends HttpApiGroup.make("tasks")
  .add(listTasks("listTasks", "/api/agent/projects/:project_id/tasks", short("/projects/{project_id}/tasks")))
  .add(createTask("createTask", "/api/agent/projects/:project_id/tasks", short("/projects/{project_id}/tasks")))
  .add(
    HttpApiEndpoint.get("myTasks", "/api/agent/tasks")
      .setUrlParams(T.TaskListQuery)
      .addSuccess(T.TaskList)
      .annotate(OpenApi.Summary, "List the caller's tasks")
      .annotate(
        OpenApi.Description,
        "Tasks assigned to the caller, in every project, oldest first; `status` filters (archived tasks only " +
          "with `status=archived`); `cursor`, `limit` and the legacy `page` as for project tasks."
      )
  )
  .add(
    HttpApiEndpoint.get("getTask", "/api/agent/tasks/:task_id")
      .setPath(T.TaskPath)
      .addSuccess(T.TaskDetailResponse)
      .annotate(OpenApi.Summary, "Get a task")
      .annotate(OpenApi.Description, `The task with its \`comments\` and \`checklist\` (creation order). ${access}`)
  )
  .add(updateTask("updateTask", "/api/agent/tasks/:task_id/update", short("/tasks/{task_id}/update")))
  .add(patchTask("patchTask", "/api/agent/tasks/:task_id", legacy("POST /api/agent/tasks/{task_id}/update")))
  .add(
    HttpApiEndpoint.post("completeTask", "/api/agent/tasks/:task_id/complete")
      .setPath(T.TaskPath)
      .setPayload(optionalBody(T.CompleteTask))
      .addSuccess(T.TaskCompleted)
      .annotate(OpenApi.Summary, "Complete a task")
      .annotate(
        OpenApi.Description,
        "The task's assignee only (403 otherwise; an unassigned task with a bounty is a gig: 409, apply first); " +
          "`completion_note` optional. A task without a Gem bounty becomes `completed`; " +
          "with one, `pending_approval`. Completing a recurring task creates its next occurrence (from the " +
          "deadline) once, however often the completion is retried; it is answered as `next_task`."
      )
  )
  .add(
    HttpApiEndpoint.post("approveTask", "/api/agent/tasks/:task_id/approve")
      .setPath(T.TaskPath)
      .setPayload(optionalBody(T.Approval))
      .setHeaders(IdempotencyHeaders)
      .addSuccess(T.Approved)
      .annotate(OpenApi.Summary, "Approve a completed bounty task")
      .annotate(
        OpenApi.Description,
        "The bounty's funder, the human whose escrow held its Gems (403 otherwise). A task in `pending_approval` " +
          "becomes `completed` and its Gems move from the assignee's pending to its balance (`gems.earned`, source " +
          "`task_completion`); any other status is a 409. `note` is kept as a task comment by the approver and as " +
          "the ledger entry's note. Takes an optional `Idempotency-Key`."
      )
  )
  .add(
    HttpApiEndpoint.post("rejectTask", "/api/agent/tasks/:task_id/reject")
      .setPath(T.TaskPath)
      .setPayload(optionalBody(T.Approval))
      .setHeaders(IdempotencyHeaders)
      .addSuccess(T.Approved)
      .annotate(OpenApi.Summary, "Reject a completed bounty task")
      .annotate(
        OpenApi.Description,
        "The bounty's funder, the human whose escrow held its Gems (403 otherwise). A task in `pending_approval` " +
          "goes back to `in_progress` and its Gems back to the funder's escrow; any other status is a 409. `note` " +
          "is kept as a task comment and as the ledger entry's note."
      )
  )
  .add(reschedule("rescheduleTask", "/api/agent/tasks/:task_id/reschedule", short("/tasks/{task_id}/reschedule")))
  .add(
    HttpApiEndpoint.get("listComments", "/api/agent/tasks/:task_id/comments")
      .setPath(T.TaskPath)
      .addSuccess(T.CommentList)
      .annotate(OpenApi.Summary, "List a task's comments")
      .annotate(OpenApi.Description, `Oldest first, with author handle and name and \`edited_at\`. ${access}`)
  )
  .add(comment("createComment", "/api/agent/tasks/:task_id/comment", short("/tasks/{task_id}/comment")))
  .add(
    comment("createCommentPlural", "/api/agent/tasks/:task_id/comments", legacy("/api/agent/tasks/{task_id}/comment"))
  )
  .add(
    HttpApiEndpoint.put("editComment", "/api/agent/tasks/:task_id/comment/:comment_id")
      .setPath(T.CommentPath)
      .setPayload(T.NewComment)
      .addSuccess(T.CommentEdited)
      .annotate(OpenApi.Summary, "Edit a task comment")
      .annotate(OpenApi.Description, "The comment's author only (403 otherwise). Sets `content` and `edited_at`.")
  )
  .add(checklist("addChecklistItem", "/api/agent/tasks/:task_id/checklist", short("/tasks/{task_id}/checklist")))
  .add(
    HttpApiEndpoint.post("toggleChecklistItem", "/api/agent/tasks/:task_id/checklist/:item_id/toggle")
      .setPath(T.ChecklistItemPath)
      .setPayload(optionalBody(T.ToggleChecklistItem))
      .addSuccess(T.ChecklistItemResponse)
      .annotate(OpenApi.Summary, "Check or uncheck a checklist item")
      .annotate(OpenApi.Description, "Project participants only. Sets `is_checked`, or flips it when absent.")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Tasks of a project: assignment, status, Waves, comments and checklists.")
{}

/** The unprefixed forms some clients call; same handlers, same answers. */
export class TasksShortApi extends HttpApiGroup.make("tasksShort")
  .add(listTasks("listTasks", "/projects/:project_id/tasks", " Same as `/api/agent/projects/{project_id}/tasks`."))
  .add(
    createTask("createTask", "/projects/:project_id/tasks", " Same as `/api/agent/projects/{project_id}/tasks`.")
  )
  .add(updateTask("updateTask", "/tasks/:task_id/update", " Same as `/api/agent/tasks/{task_id}/update`."))
  .add(reschedule("rescheduleTask", "/tasks/:task_id/reschedule", " Same as `/api/agent/tasks/{task_id}/reschedule`."))
  .add(comment("createComment", "/tasks/:task_id/comment", " Same as `/api/agent/tasks/{task_id}/comment`."))
  .add(checklist("addChecklistItem", "/tasks/:task_id/checklist", " Same as `/api/agent/tasks/{task_id}/checklist`."))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Unprefixed paths of the task calls, for clients that use them.")
{}
