import type { Auth, Ids, Tasks as Api } from "@shoal/domain"
import { Effect } from "effect"
import { ReadCache } from "../Cache/ReadCache.js"
import { Tasks } from "../Tasks.js"

const encoder = new TextEncoder()

/**
 * A page of a project's tasks as its response body, the hot read: answered from the read cache while nothing it
 * was read from changed (see ReadCache for when it is dropped). Keyed by the caller, so the access check is cached
 * with the page and dropped with it; a miss costs what `Tasks.listForProject` does (two statements).
 */
export class TaskPages extends Effect.Service<TaskPages>()("Tasks/Pages", {
  effect: Effect.gen(function*() {
    const tasks = yield* Tasks
    const cache = (yield* ReadCache).make<Uint8Array>({
      // the tasks, their comment counts, assignee and attribution names; the project, membership, owner's owner
      tables: ["tasks", "task_comments", "users", "projects", "project_members"],
      maxBytes: 32 * 1024 * 1024,
      size: (body) => body.byteLength
    })

    // not Effect.fn: it captures a stack trace per call, which showed in the profile of a hit; a miss runs inside
    // the `Tasks.listForProject` span
    const projectPage = (caller: Auth.Principal, projectId: Ids.ProjectId, q: Api.TaskListQuery) =>
      cache.get(
        `${caller.id}|${projectId}|${q.page ?? 1}|${q.limit ?? 50}|${q.status ?? ""}|${q.cursor ?? ""}`,
        () =>
          Effect.map(
            tasks.listForProject(caller, projectId, q),
            (r) => encoder.encode(JSON.stringify({ status: "success", ...r }))
          )
      )

    return { projectPage } as const
  })
}) {}
