import { Toolkit } from "@effect/ai"
import { Gigs as GigsApi, Projects as ProjectsApi, Tasks as TasksApi } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { Gigs } from "../../Gigs.js"
import { Idempotency } from "../../Http/Idempotency.js"
import { withOnly } from "../../Http/LeanContext.js"
import { ok } from "../../Http/RequestOf.js"
import { PublicUrl } from "../../Identity/PublicUrl.js"
import { Projects } from "../../Projects.js"
import { Tasks } from "../../Tasks.js"
import { TaskNotes } from "../../Tasks/Notes.js"
import { commentCreated, taskCompleted, toTaskJson } from "../../Tasks/Wire.js"
import { BalanceChanges } from "../../Wallet/BalanceChanges.js"
import { McpCallers } from "../Callers.js"
import { adds, answered, destroys, idempotencyKey, queryFields, reads, sets, tool, ToolRunner } from "../Tool.js"

/** Projects, their tasks, and gigs (public tasks with a Gems bounty). */
export const WorkTools = Toolkit.make(
  tool(
    "my_tasks",
    "List the tasks assigned to you, optionally filtered by `status`, newest first, with `page` and `limit` for paging.",
    queryFields(TasksApi.TaskListQuery.fields),
    reads
  ),
  tool(
    "get_task",
    "Return one task by its `task_id` with its comments and checklist; only tasks you may see are returned.",
    TasksApi.TaskPath.fields,
    reads
  ),
  tool(
    "create_task",
    "Create a task titled `title` in project `project_id`, optionally assigned (`assigned_to` handle), with a deadline or Gems bounty.",
    { ...ProjectsApi.ProjectPath.fields, ...TasksApi.NewTask.fields, ...idempotencyKey },
    adds
  ),
  tool(
    "update_task",
    "Change a task you may edit by its `task_id`: set `status` (pending, in_progress, review, completed) or other fields.",
    { ...TasksApi.TaskPath.fields, ...TasksApi.TaskPatch.fields },
    destroys
  ),
  tool(
    "complete_task",
    "Mark the task `task_id` done with an optional `completion_note`; a bounty then waits for the owner's approval.",
    { ...TasksApi.TaskPath.fields, ...TasksApi.CompleteTask.fields },
    sets
  ),
  tool(
    "comment_on_task",
    "Add a comment with `content` to the task `task_id`, e.g. to report progress or ask the owner a question.",
    { ...TasksApi.TaskPath.fields, ...TasksApi.NewComment.fields, ...idempotencyKey },
    adds
  ),
  tool(
    "add_checklist_item",
    "Add a checklist item with `text` to the task `task_id`, to break the work into steps you can tick off.",
    { ...TasksApi.TaskPath.fields, ...TasksApi.NewChecklistItem.fields, ...idempotencyKey },
    adds
  ),
  tool(
    "search_projects",
    "Find projects you can see whose title or description contains `q`; `mine` \"true\" keeps your own, paged by `page`.",
    queryFields(ProjectsApi.ProjectListQuery.fields),
    reads
  ),
  tool(
    "create_project",
    "Create a project titled `title` (you own it) to hold tasks; optionally give a description and other settings.",
    { ...ProjectsApi.NewProject.fields, ...idempotencyKey },
    adds
  ),
  tool(
    "list_gigs",
    "List open gigs (public tasks with a Gems bounty anyone may apply for), filtered by `skill` or `min_bounty`.",
    queryFields(GigsApi.GigQuery.fields),
    reads
  ),
  tool(
    "apply_gig",
    "Apply for the gig `task_id` with an optional `message` to its owner saying why you are a good fit.",
    { ...GigsApi.GigPath.fields, ...GigsApi.NewApplication.fields, ...idempotencyKey },
    adds
  )
)

export const WorkToolsLive = WorkTools.toLayer(Effect.gen(function*() {
  const { as, keyed } = yield* ToolRunner
  const tasks = yield* Tasks
  const notes = yield* TaskNotes
  const projects = yield* Projects
  const gigs = yield* Gigs
  const { tracked } = yield* BalanceChanges
  const publicUrl = yield* Effect.orDie(PublicUrl)
  return {
    my_tasks: (q) => as((c) => Effect.map(tasks.listMine(c, q), (r) => ({ status: "success", ...r }))),
    get_task: ({ task_id }) =>
      as((c) =>
        Effect.map(tasks.get(c, task_id), ({ checklist, comments, task }) => ({
          status: "success",
          task: { ...toTaskJson(publicUrl, task), comments, checklist }
        }))
      ),
    create_task: ({ idempotency_key, project_id, ...payload }) =>
      keyed(
        idempotency_key,
        "createTask",
        { payload, path: { project_id } },
        TasksApi.TaskResponse,
        (c) => Effect.map(tasks.create(c, project_id, payload), ok(TasksApi.TaskResponse)),
        () => tracked
      ),
    update_task: ({ task_id, ...patch }) =>
      as((c) => tracked(tasks.update(c, task_id, patch)).pipe(Effect.map(answered(TasksApi.TaskResponse)))),
    // as REST, no key: a completion is a conditional transition, so a retry settles a bounty once
    complete_task: ({ completion_note, task_id }) =>
      as((c) =>
        tracked(tasks.complete(c, task_id, completion_note)).pipe(
          Effect.map((r) => Schema.encodeSync(TasksApi.TaskCompleted)(taskCompleted(r)))
        )
      ),
    comment_on_task: ({ idempotency_key, task_id, ...payload }) =>
      keyed(
        idempotency_key,
        "createComment",
        { payload, path: { task_id } },
        TasksApi.CommentCreated,
        (c) => Effect.map(notes.addComment(c, task_id, payload), commentCreated)
      ),
    add_checklist_item: ({ idempotency_key, task_id, ...payload }) =>
      keyed(
        idempotency_key,
        "addChecklistItem",
        { payload, path: { task_id } },
        TasksApi.ChecklistItemResponse,
        (c) =>
          Effect.map(notes.addItem(c, task_id, payload.text), (item) =>
            ok(TasksApi.ChecklistItemResponse)({ task_id, ...item }))
      ),
    search_projects: (q) => as((c) => Effect.map(projects.list(c, q), answered(ProjectsApi.ProjectList))),
    create_project: ({ idempotency_key, ...payload }) =>
      keyed(
        idempotency_key,
        "createProject",
        { payload },
        ProjectsApi.ProjectResponse,
        (c) => Effect.map(projects.create(c, payload), ok(ProjectsApi.ProjectResponse))
      ),
    list_gigs: (q) => as(() => Effect.map(gigs.list(q), Schema.encodeSync(GigsApi.GigList))),
    apply_gig: ({ idempotency_key, task_id, ...payload }) =>
      keyed(
        idempotency_key,
        "applyGig",
        { payload, path: { task_id } },
        GigsApi.ApplicationResponse,
        (c) => gigs.apply(c, task_id, payload)
      )
  }
})).pipe(withOnly(McpCallers, Idempotency, Tasks, TaskNotes, Projects, Gigs, BalanceChanges))
