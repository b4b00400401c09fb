import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { describeApp, signUp } from "../support/TestApp.js"
import { type Client, failure, humanWithAgent, newProject } from "./support.js"

type Call = Effect.Effect<unknown, { readonly _tag: string }>

/** A project of the owner with one task, one comment and one checklist item. */
const seed = (owner: Client, visibility: "public" | "private") =>
  Effect.gen(function*() {
    const project = yield* newProject(owner, { visibility })
    const { task } = yield* owner.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: "t", assigned_to: "me", checklists: [{ text: "x" }] },
      headers: {}
    })
    const comment = yield* owner.tasks.createComment({
      path: { task_id: task.id },
      payload: { content: "c" },
      headers: {}
    })
    const detail = yield* owner.tasks.getTask({ path: { task_id: task.id } })
    return { project, task, commentId: comment.comment_id, itemId: detail.task.checklist[0]!.id }
  })

/** Every project and task route that takes an id, called by `c` on the seeded records. */
const taskCalls = (c: Client, s: Effect.Effect.Success<ReturnType<typeof seed>>, wave: string) => {
  const project_id = s.project.id
  const task_id = s.task.id
  return {
    reads: {
      listTasks: c.tasks.listTasks({ path: { project_id }, urlParams: {} }) as Call,
      listTasksShort: c.tasksShort.listTasks({ path: { project_id }, urlParams: {} }) as Call,
      getTask: c.tasks.getTask({ path: { task_id } }) as Call,
      listComments: c.tasks.listComments({ path: { task_id } }) as Call
    },
    writes: {
      createTask: c.tasks.createTask({ path: { project_id }, payload: { title: "x" }, headers: {} }) as Call,
      createTaskShort: c.tasksShort.createTask({ path: { project_id }, payload: { title: "x" }, headers: {} }) as Call,
      updateTask: c.tasks.updateTask({ path: { task_id }, payload: { status: "cancelled" } }) as Call,
      updateTaskShort: c.tasksShort.updateTask({ path: { task_id }, payload: { status: "cancelled" } }) as Call,
      completeTask: c.tasks.completeTask({ path: { task_id }, payload: {} }) as Call,
      rescheduleTask: c.tasks.rescheduleTask({ path: { task_id }, payload: { wave_time: wave } }) as Call,
      rescheduleTaskShort: c.tasksShort.rescheduleTask({ path: { task_id }, payload: { wave_time: wave } }) as Call,
      createComment: c.tasks.createComment({ path: { task_id }, payload: { content: "x" }, headers: {} }) as Call,
      createCommentShort: c.tasksShort.createComment({
        path: { task_id },
        payload: { content: "x" },
        headers: {}
      }) as Call,
      editComment: c.tasks.editComment({
        path: { task_id, comment_id: s.commentId },
        payload: { content: "x" }
      }) as Call,
      addChecklistItem: c.tasks.addChecklistItem({ path: { task_id }, payload: { text: "x" }, headers: {} }) as Call,
      addChecklistItemShort: c.tasksShort.addChecklistItem({
        path: { task_id },
        payload: { text: "x" },
        headers: {}
      }) as Call,
      toggleChecklistItem: c.tasks.toggleChecklistItem({
        path: { task_id, item_id: s.itemId },
        payload: {}
      }) as Call,
      approveTask: c.tasks.approveTask({ path: { task_id }, payload: {}, headers: {} }) as Call,
      rejectTask: c.tasks.rejectTask({ path: { task_id }, payload: {}, headers: {} }) as Call,
      updateProject: c.projects.updateProject({ path: { project_id }, payload: { title: "taken" } }) as Call,
      addParticipant: c.projects.addParticipant({ path: { project_id }, payload: { handle: "me" } }) as Call,
      deleteProject: c.projects.deleteProject({ path: { project_id } }) as Call
    }
  }
}

const wave = () => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 7_200_000).toISOString()

const outcomes = (calls: Record<string, Call>) =>
  Effect.forEach(
    Object.entries(calls),
    ([name, call]) =>
      Effect.map(Effect.either(call), (r) => [name, r._tag === "Right" ? "ok" : (r.left as { _tag: string })._tag])
  )

describeApp()("cross-tenant access to projects, tasks and squads", (it) => {
  it.effect("another account's private project: every task route is a 404", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const stranger = yield* signUp()
      const s = yield* seed(agent.client, "private")
      const { reads, writes } = taskCalls(stranger.client, s, wave())
      const seen = yield* outcomes({ ...reads, ...writes })
      expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(seen.map(([n]) => [n, "NotFound"])))
    }))

  it.effect("a public project: a non-participant reads, and every write is a 403", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const stranger = yield* signUp()
      const s = yield* seed(agent.client, "public")
      const { reads, writes } = taskCalls(stranger.client, s, wave())
      const read = yield* outcomes(reads)
      expect(Object.fromEntries(read)).toEqual(Object.fromEntries(read.map(([n]) => [n, "ok"])))
      const wrote = yield* outcomes(writes)
      expect(Object.fromEntries(wrote)).toEqual(Object.fromEntries(wrote.map(([n]) => [n, "Forbidden"])))
      // nothing changed
      const task = yield* agent.client.tasks.getTask({ path: { task_id: s.task.id } })
      expect(task.task).toMatchObject({ status: "pending", wave_scheduled: null, comment_count: 1 })
      expect(task.task.checklist.map((i) => i.is_checked)).toEqual([false])
      const project = yield* agent.client.projects.getProject({ path: { project_id: s.project.id } })
      expect(project.project.title).toBe(s.project.title)
    }))

  it.effect("the owner's human manages its agent's private project; other humans do not see it", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const s = yield* seed(agent.client, "private")
      expect((yield* human.client.tasks.getTask({ path: { task_id: s.task.id } })).task.id).toBe(s.task.id)
      const other = yield* humanWithAgent
      const e = yield* failure(other.human.client.tasks.getTask({ path: { task_id: s.task.id } }))
      expect(e._tag).toBe("NotFound")
      // an agent of another human cannot move tasks into a project it cannot see, nor out of one
      const theirs = yield* newProject(other.agent.client)
      const move = yield* failure(other.agent.client.projects.moveTasks({
        path: { project_id: theirs.id },
        payload: { target_project_id: s.project.id }
      }))
      expect(move._tag).toBe("NotFound")
    }))

  it.effect("squads: adding or removing members of another's squad is a 403; unknown squad 404", () =>
    Effect.gen(function*() {
      const owner = yield* signUp()
      const stranger = yield* signUp()
      const { team } = yield* owner.client.teams.createTeam({ payload: { name: "Crew" }, headers: {} })
      const add = yield* failure(stranger.client.teams.addTeamMember({
        path: { team_id: team.id },
        payload: { handle: stranger.user.handle }
      }))
      expect(add._tag).toBe("Forbidden")
      const remove = yield* failure(stranger.client.teams.removeTeamMember({
        path: { team_id: team.id, handle: owner.user.handle }
      }))
      expect(remove._tag).toBe("Forbidden")
      const missing = yield* failure(stranger.client.teams.getTeam({
        path: { team_id: crypto.randomUUID() as typeof team.id }
      }))
      expect(missing._tag).toBe("NotFound")
      // a squad the caller is not in cannot be set on a project
      const p = yield* failure(newProject(stranger.client, { team_id: team.id }))
      expect(p._tag).toBe("Forbidden")
    }))
})
