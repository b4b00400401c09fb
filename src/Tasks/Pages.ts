import type { Auth, Ids, Tasks as Api } from "@shoal/domain"
import { Effect } from "effect"
import { bodyCache } from "../Cache/ReadCache.js"
import { Tasks } from "../Tasks.js"

/**
 * A page of a project's tasks, the hot read, through `bodyCache`: keyed by the caller, so the access check is cached
 * with the page and dropped with it; a miss costs what `Tasks.listForProject` does (two statements).
 */
export class TaskPages extends Effect.Service<TaskPages>()("Tasks/Pages", {
  effect: Effect.gen(function*() {
    const tasks = yield* Tasks
    // the tasks, their comment counts, assignee and attribution names; the project, membership, owner's owner
    const cached = yield* bodyCache(["tasks", "task_comments", "users", "projects", "project_members"])

    const projectPage = (caller: Auth.Principal, projectId: Ids.ProjectId, q: Api.TaskListQuery) =>
      cached(
        `${caller.id}|${projectId}|${q.page ?? 1}|${q.limit ?? 50}|${q.status ?? ""}|${q.cursor ?? ""}`,
        () => tasks.listForProject(caller, projectId, q)
      )

    return { projectPage } as const
  })
}) {}
