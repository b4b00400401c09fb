import type { Auth, Ids } from "@shoal/domain"
import { Tasks } from "@shoal/domain"
import { requestedBy } from "../Projects/Attribution.js"
import type { ChecklistRow, CommentRow } from "./NotesRepo.js"
import type { TaskRow } from "./Repo.js"

export const taskPermalink = (publicUrl: string, row: { readonly project_id: string; readonly id: string }) =>
  `${publicUrl}/projects/${row.project_id}/tasks/${row.id}`

/** The data of `task.assigned`, to the assignee: the task and who assigned it (an assignment or an accepted gig). */
export const taskAssigned = (
  publicUrl: string,
  task: { readonly id: Ids.TaskId; readonly title: string; readonly project_id: Ids.ProjectId },
  projectTitle: string,
  by: Auth.Principal
) => ({
  id: task.id,
  title: task.title,
  project_id: task.project_id,
  project_name: projectTitle,
  permalink: taskPermalink(publicUrl, task),
  assigned_by_id: by.id,
  assigned_by_handle: by.handle
})

/**
 * The wire form of `Task`, built directly from a decoded row: a page of 50 tasks is the hot read, and encoding 50
 * classes through their schema costs more than the query. The typed client still decodes it as `Task`.
 */
export const toTaskJson = (publicUrl: string, row: TaskRow): typeof Tasks.Task.Encoded => ({
  id: row.id,
  project_id: row.project_id,
  title: row.title,
  description: row.description,
  status: row.status,
  assigned_to_id: row.assigned_to_id,
  assigned_to: row.assigned_to_id === null || row.a_handle === null
    ? null
    : { id: row.assigned_to_id, display_name: row.a_name ?? "", handle: row.a_handle },
  created_by_id: row.created_by_id,
  permalink: taskPermalink(publicUrl, row),
  wave_scheduled: row.wave_scheduled,
  deadline: row.deadline,
  due_date: row.deadline,
  recurrence: row.recurrence,
  priority: row.priority,
  gem_bounty: row.gem_bounty,
  comment_count: row.comment_count,
  completion_note: row.completion_note,
  completed_at: row.completed_at,
  created_at: row.created_at,
  updated_at: row.updated_at,
  ...(row.rb_id !== null && row.rb_handle !== null
    ? { requested_by: { id: row.rb_id, handle: row.rb_handle, display_name: row.rb_name ?? "" } }
    : {})
})

/** A new comment's answer, the same over REST and MCP. */
export const commentCreated = (r: {
  readonly comment: Tasks.TaskComment
  readonly permalink: string
  readonly warning?: string | undefined
}) =>
  new Tasks.CommentCreated({
    status: "success",
    comment_id: r.comment.id,
    task_permalink: r.permalink,
    comment: r.comment,
    warning: r.warning
  }, true)

export const toTask = (publicUrl: string, row: TaskRow): Tasks.Task =>
  new Tasks.Task(toTaskJson(publicUrl, row) as any, true)

/** The single-task read (`GET /api/agent/tasks/<id>`, the task's permalink): the task, its comments, its checklist. */
export const toTaskDetail = (
  publicUrl: string,
  r: {
    readonly task: TaskRow
    readonly comments: ReadonlyArray<Tasks.TaskComment | CommentRow>
    readonly checklist: ReadonlyArray<ChecklistRow>
  }
) =>
  new Tasks.TaskDetailResponse({
    status: "success",
    task: new Tasks.TaskDetail({
      ...(toTaskJson(publicUrl, r.task) as any),
      comments: r.comments as any,
      checklist: r.checklist.map((i) => new Tasks.ChecklistItem(i, true))
    }, true)
  }, true)

export const toComment = ({ rb_handle, rb_id, rb_name, ...row }: CommentRow): Tasks.TaskComment =>
  new Tasks.TaskComment({ ...row, requested_by: requestedBy({ rb_id, rb_handle, rb_name }) }, true)

/** The answer to a completion, the same for `POST /api/agent/tasks/:id/complete` and the MCP tool. */
export const taskCompleted = ({ next, task }: { readonly task: Tasks.Task; readonly next: Tasks.Task | null }) =>
  new Tasks.TaskCompleted({
    status: task.status,
    task_id: task.id,
    gem_bounty: task.gem_bounty,
    message: task.status === "pending_approval"
      ? `task completed; ${task.gem_bounty} Gems await the project owner's approval`
      : next !== null
      ? `task completed; next ${task.recurrence} occurrence due ${next.deadline}`
      : "task completed",
    task,
    next_task: next
  }, true)
