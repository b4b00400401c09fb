import { Schema } from "effect"
import { HttpUrl, IntParam, limited, Success, Timestamp } from "./Fields.js"
import { ChecklistItemId, CommentId, HandleInput, ProjectId, TaskId, UserId } from "./Ids.js"
import { PageMeta } from "./Projects.js"
import {
  AttributionFields,
  CommentContent,
  DateTimeInput,
  Deadline,
  Description,
  Person,
  Title,
  Warning
} from "./Work.js"

const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

export const TaskStatus = Schema.Literal(
  "pending",
  "in_progress",
  "review",
  "completed",
  "cancelled",
  "archived",
  "pending_approval"
)
export type TaskStatus = typeof TaskStatus.Type
/** What `update` may set; `pending_approval` is reached only through `complete` on a task with a bounty. */
export const SettableStatus = Schema.Literal("pending", "in_progress", "review", "completed", "cancelled", "archived")
export const Recurrence = Schema.Literal("daily", "weekly", "monthly")
export type Recurrence = typeof Recurrence.Type
/** How pressing a task is, as its creator or a manager says; null when nobody said. */
export const Priority = Schema.Literal("low", "medium", "high", "urgent")
export type Priority = typeof Priority.Type

/** Gems a human attaches to a task (minted into its escrow); 0 removes the bounty. */
export const GemBounty = Schema.Number.pipe(
  Schema.int({ message: () => "gem_bounty must be a whole number of Gems" }),
  Schema.between(0, 1_000_000_000, { message: () => "gem_bounty must be from 0 to 1000000000" })
).annotations({ description: "Gems attached to the task (humans only; minted into the human's escrow)" })

/** What legacy clients send for `deadline` (the spec's name for it in their listings); both given must agree. */
const dueDate = Deadline.annotations({ description: "the same as `deadline`, for legacy clients" })

const assignee = HandleInput.annotations({ description: "a handle, or `me` for the caller" })

export const TaskFields = {
  id: TaskId,
  project_id: ProjectId,
  title: Schema.String,
  description: Schema.String,
  status: TaskStatus,
  assigned_to_id: Schema.NullOr(UserId),
  assigned_to: Schema.NullOr(Person),
  created_by_id: UserId,
  permalink: HttpUrl,
  wave_scheduled: Schema.NullOr(Timestamp).annotations({ description: "the Wave hour (UTC) the task is scheduled in" }),
  deadline: Schema.NullOr(Schema.String).annotations({ description: "an ISO 8601 date-time in UTC" }),
  due_date: Schema.NullOr(Schema.String).annotations({ description: "the deadline, for legacy clients" }),
  recurrence: Schema.NullOr(Recurrence),
  priority: Schema.NullOr(Priority),
  gem_bounty: Schema.Int,
  comment_count: Schema.Int,
  completion_note: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  requested_by: Schema.optional(Person)
}
export class Task extends Schema.Class<Task>("Task")(TaskFields) {}

export class TaskComment extends Schema.Class<TaskComment>("TaskComment")({
  id: CommentId,
  task_id: TaskId,
  content: Schema.String,
  author_id: UserId,
  author_handle: Schema.String,
  author_name: Schema.String,
  created_at: Timestamp,
  edited_at: Schema.NullOr(Timestamp),
  requested_by: Schema.optional(Person)
}) {}

export class ChecklistItem extends Schema.Class<ChecklistItem>("ChecklistItem")({
  id: ChecklistItemId,
  text: Schema.String,
  is_checked: Schema.Boolean
}) {}

export class TaskDetail extends Schema.Class<TaskDetail>("TaskDetail")({
  ...TaskFields,
  comments: Schema.Array(TaskComment),
  checklist: Schema.Array(ChecklistItem)
}) {}

const ChecklistText = Schema.Trim.pipe(Schema.compose(limited(1_000, 1)))

export const NewTask = Schema.Struct({
  title: Title,
  description: Schema.optional(Description),
  assigned_to: Schema.optional(assignee),
  assign_to: Schema.optional(assignee),
  assigned_to_id: Schema.optional(UserId),
  recurrence: Schema.optional(Schema.NullOr(Recurrence)),
  priority: Schema.optional(Schema.NullOr(Priority)),
  deadline: Schema.optional(Schema.NullOr(Deadline)),
  due_date: Schema.optional(Schema.NullOr(dueDate)),
  wave_scheduled: Schema.optional(Schema.NullOr(DateTimeInput)),
  gem_bounty: Schema.optional(GemBounty),
  checklists: Schema.optional(
    Schema.Array(
      Schema.Struct({ text: ChecklistText, is_checked: Schema.optional(Schema.Boolean) }).annotations(strict)
    ).pipe(Schema.maxItems(200))
  ),
  ...AttributionFields
}).annotations({ identifier: "NewTask", ...strict })
export type NewTask = typeof NewTask.Type

export const TaskPatch = Schema.Struct({
  status: Schema.optional(SettableStatus),
  title: Schema.optional(Title),
  description: Schema.optional(Description),
  assigned_to: Schema.optional(assignee),
  assign_to: Schema.optional(assignee),
  assigned_to_id: Schema.optional(Schema.NullOr(UserId)),
  project_id: Schema.optional(ProjectId),
  recurrence: Schema.optional(Schema.NullOr(Recurrence)),
  priority: Schema.optional(Schema.NullOr(Priority)),
  deadline: Schema.optional(Schema.NullOr(Deadline)),
  due_date: Schema.optional(Schema.NullOr(dueDate)),
  gem_bounty: Schema.optional(GemBounty),
  ...AttributionFields
}).annotations({ identifier: "TaskPatch", ...strict })
export type TaskPatch = typeof TaskPatch.Type

export const TaskListQuery = Schema.Struct({
  status: Schema.optional(TaskStatus),
  cursor: Schema.optional(limited(200, 1).annotations({ description: "`next_cursor` of the previous page" })),
  page: Schema.optional(
    IntParam({ min: 1, message: "page is an integer from 1", description: "legacy: page, from 1 (prefer `cursor`)" })
  ),
  limit: Schema.optional(IntParam({
    min: 1,
    max: 1000,
    message: "limit is an integer from 1 to 1000",
    description: "tasks per page (default 50, at most 1000)"
  }))
})
export type TaskListQuery = typeof TaskListQuery.Type

export class TaskList extends Schema.Class<TaskList>("TaskList")({
  status: Success,
  tasks: Schema.Array(Task),
  next_cursor: Schema.NullOr(Schema.String).annotations({ description: "null at the end" }),
  meta: PageMeta.annotations({ description: "the whole list's total; `page` numbers the legacy `page` parameter" })
}) {}

/** What a change did to the task's Gem bounty: a cancel or archive burns it. */
export const BountyOutcome = Schema.Struct({
  amount: Schema.Number,
  outcome: Schema.Literal("burned")
}).annotations({ identifier: "BountyOutcome" })

export class TaskResponse extends Schema.Class<TaskResponse>("TaskResponse")({
  status: Success,
  task: Task,
  warning: Warning,
  bounty: Schema.optional(BountyOutcome).annotations({
    description: "present when the change burned the task's bounty (its Gems, in escrow or pending, are destroyed)"
  })
}) {}

export class TaskDetailResponse extends Schema.Class<TaskDetailResponse>("TaskDetailResponse")({
  status: Success,
  task: TaskDetail
}) {}

export const CompleteTask = Schema.Struct({
  completion_note: Schema.optional(limited(10_000))
}).annotations({ identifier: "CompleteTask", ...strict })

export class TaskCompleted extends Schema.Class<TaskCompleted>("TaskCompleted")({
  status: TaskStatus.annotations({ description: "`completed`, or `pending_approval` when the task has a bounty" }),
  task_id: TaskId,
  gem_bounty: Schema.Int,
  message: Schema.String,
  task: Task,
  next_task: Schema.NullOr(Task).annotations({ description: "the next occurrence of a recurring task" })
}) {}

export const Approval = Schema.Struct({
  note: Schema.optional(limited(10_000))
}).annotations({ identifier: "Approval", ...strict })

export class Approved extends Schema.Class<Approved>("Approved")({
  status: Success,
  task_id: TaskId,
  task_status: TaskStatus,
  gem_bounty: Schema.Int,
  message: Schema.String,
  task: Task
}) {}

export const Reschedule = Schema.Struct({ wave_time: DateTimeInput }).annotations({
  identifier: "Reschedule",
  ...strict
})

export class Rescheduled extends Schema.Class<Rescheduled>("Rescheduled")({
  status: Success,
  task_id: TaskId,
  wave_id: Schema.String,
  wave_time: Timestamp,
  task: Task
}) {}

export class CommentList extends Schema.Class<CommentList>("CommentList")({
  status: Success,
  task_id: TaskId,
  comments: Schema.Array(TaskComment)
}) {}

export const NewComment = Schema.Struct({ content: CommentContent, ...AttributionFields }).annotations({
  identifier: "NewComment",
  ...strict
})
export type NewComment = typeof NewComment.Type

export class CommentCreated extends Schema.Class<CommentCreated>("CommentCreated")({
  status: Success,
  comment_id: CommentId,
  task_permalink: HttpUrl,
  comment: TaskComment,
  warning: Warning
}) {}

export class CommentEdited extends Schema.Class<CommentEdited>("CommentEdited")({
  status: Success,
  comment: TaskComment,
  warning: Warning
}) {}

export const NewChecklistItem = Schema.Struct({ text: ChecklistText }).annotations({
  identifier: "NewChecklistItem",
  ...strict
})

export const ToggleChecklistItem = Schema.Struct({
  is_checked: Schema.optional(Schema.Boolean.annotations({ description: "the new state; without it, flipped" }))
}).annotations({ identifier: "ToggleChecklistItem", ...strict })

export class ChecklistItemResponse extends Schema.Class<ChecklistItemResponse>("ChecklistItemResponse")({
  status: Success,
  task_id: TaskId,
  id: ChecklistItemId,
  text: Schema.String,
  is_checked: Schema.Boolean
}) {}

export const TaskPath = Schema.Struct({ task_id: TaskId })
export const CommentPath = Schema.Struct({ task_id: TaskId, comment_id: CommentId })
export const ChecklistItemPath = Schema.Struct({ task_id: TaskId, item_id: ChecklistItemId })
