import { SqlClient } from "@effect/sql"
import type { Auth, Ids, Tasks as Api } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { DateTime, Effect, Option } from "effect"
import { PublicUrl } from "../Identity/PublicUrl.js"
import { resolveAttribution } from "../Projects/Attribution.js"
import { PeopleRepo } from "../Projects/PeopleRepo.js"
import * as Policy from "../Projects/Policy.js"
import { Outbox } from "../Realtime/Outbox.js"
import { NotesRepo } from "./NotesRepo.js"
import { TasksRepo } from "./Repo.js"
import { taskPermalink, toComment } from "./Wire.js"

/** What is said about a task: comments (author-edited) and its checklist. */
export class TaskNotes extends Effect.Service<TaskNotes>()("Tasks/Notes", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tasks = yield* TasksRepo
    const repo = yield* NotesRepo
    const people = yield* PeopleRepo
    const outbox = yield* Outbox
    const publicUrl = yield* Effect.orDie(PublicUrl)

    const comment = (id: Ids.CommentId) =>
      Effect.flatMap(repo.comment(id), Effect.orDieWith(() => `comment ${id} vanished`))

    const comments = Effect.fn("TaskNotes.comments")(function*(caller: Auth.Principal, id: Ids.TaskId) {
      yield* tasks.visible(id, caller.id)
      return (yield* repo.comments(id)).map(toComment)
    })

    const addComment = Effect.fn("TaskNotes.addComment")(
      function*(caller: Auth.Principal, id: Ids.TaskId, input: Api.NewComment) {
        const task = yield* tasks.visible(id, caller.id)
        yield* Policy.requireParticipant(task, "comment on its tasks")
        const attribution = yield* resolveAttribution(people, input)
        const at = yield* DateTime.nowAsDate
        const row = yield* Effect.gen(function*() {
          const commentId = yield* repo.insertComment({
            task: id,
            author: caller.id,
            content: input.content,
            requestedBy: attribution.id,
            now: at
          })
          // the assignee and the task's creator hear of it, the author does not
          const recipients = [task.assigned_to_id, task.created_by_id].filter((u): u is Ids.UserId =>
            u !== null && u !== caller.id
          )
          yield* outbox.emit(recipients, "task.comment", {
            task_id: id,
            task_title: task.title,
            comment_id: commentId,
            author_handle: caller.handle,
            content: input.content
          })
          return yield* comment(commentId)
        }).pipe(sql.withTransaction, Effect.orDie)
        return { comment: toComment(row), permalink: taskPermalink(publicUrl, task), warning: attribution.warning }
      }
    )

    const editComment = Effect.fn("TaskNotes.editComment")(
      function*(
        caller: Auth.Principal,
        id: Ids.TaskId,
        commentId: Ids.CommentId,
        input: Api.NewComment
      ) {
        yield* tasks.visible(id, caller.id)
        const existing = yield* repo.comment(commentId)
        if (Option.isNone(existing) || existing.value.task_id !== id) {
          return yield* new Errors.NotFound({ message: `no comment ${commentId} on task ${id}` })
        }
        if (existing.value.author_id !== caller.id) {
          return yield* new Errors.Forbidden({ message: "only the comment's author can edit it" })
        }
        const attribution = yield* resolveAttribution(people, input)
        yield* repo.editComment(commentId, input.content, attribution.id, yield* DateTime.nowAsDate)
        return { comment: toComment(yield* comment(commentId)), warning: attribution.warning }
      }
    )

    const addItem = Effect.fn("TaskNotes.addItem")(function*(caller: Auth.Principal, id: Ids.TaskId, text: string) {
      const task = yield* tasks.visible(id, caller.id)
      yield* Policy.requireParticipant(task, "change its checklists")
      const items = yield* repo.addItems(id, [{ text, is_checked: false }], yield* DateTime.nowAsDate)
      return items[0]!
    })

    const toggleItem = Effect.fn("TaskNotes.toggleItem")(
      function*(caller: Auth.Principal, id: Ids.TaskId, item: Ids.ChecklistItemId, checked: boolean | undefined) {
        const task = yield* tasks.visible(id, caller.id)
        yield* Policy.requireParticipant(task, "change its checklists")
        return yield* Effect.flatMap(
          repo.setItem(id, item, checked),
          Effect.orElseFail(() => new Errors.NotFound({ message: `no checklist item ${item} on task ${id}` }))
        )
      }
    )

    return { comments, addComment, editComment, addItem, toggleItem } as const
  }),
  dependencies: [TasksRepo.Default, NotesRepo.Default, PeopleRepo.Default]
}) {}
