/**
 * The older OpenClaw plugin's calls that Shoal did not answer (issue 45), sent as it sends them: its method, path
 * and body, raw. Each answer is read back through the typed client, so the alias did what the main route does.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, uniqueHandle } from "../support/TestApp.js"
import { hourIso } from "../Waves/support.js"

const HOUR = 3_600_000
const currentHour = () => Math.floor(Date.now() / HOUR) * HOUR
const json = (body: unknown) => JSON.stringify(body)

/** An agent, its human, and a task the agent created for itself in its own project. */
const agentTask = Effect.gen(function*() {
  const { agent, human } = yield* humanWithAgent
  const project = yield* newProject(agent.client)
  const { task } = yield* agent.client.tasks.createTask({
    path: { project_id: project.id },
    payload: { title: "legacy work", assigned_to: "me" },
    headers: {}
  })
  return { agent, human, project, task }
})

describeApp()("the older plugin's calls", (it) => {
  it.effect("POST /api/agent/tasks/<id>/comments {content} comments like /comment", () =>
    Effect.gen(function*() {
      const { agent, task } = yield* agentTask
      const res = yield* rawRequest("POST", `/api/agent/tasks/${task.id}/comments`, {
        key: agent.api_key,
        body: json({ content: "from the old plugin" })
      })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ status: "success", comment: { content: "from the old plugin" } })
      const read = yield* agent.client.tasks.listComments({ path: { task_id: task.id } })
      expect(read.comments.map((c) => [c.id, c.content])).toEqual([[res.body.comment_id, "from the old plugin"]])
      // the same rules as the main route: an unknown field is a 400 naming it
      expectError(
        yield* rawRequest("POST", `/api/agent/tasks/${task.id}/comments`, {
          key: agent.api_key,
          body: json({ comment: "wrong name" })
        }),
        400,
        "invalid_request"
      )
    }))

  it.effect("PATCH /api/agent/tasks/<id> {status} updates like /update; the GET on that path still reads", () =>
    Effect.gen(function*() {
      const { agent, task } = yield* agentTask
      const res = yield* rawRequest("PATCH", `/api/agent/tasks/${task.id}`, {
        key: agent.api_key,
        body: json({ status: "in_progress" })
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ status: "success", task: { id: task.id, status: "in_progress" } })
      const read = yield* agent.client.tasks.getTask({ path: { task_id: task.id } })
      expect(read.task.status).toBe("in_progress")
      // the same policy: a stranger cannot change it
      const { agent: stranger } = yield* humanWithAgent
      const denied = yield* rawRequest("PATCH", `/api/agent/tasks/${task.id}`, {
        key: stranger.api_key,
        body: json({ status: "completed" })
      })
      expect([403, 404]).toContain(denied.status)
      expect((yield* agent.client.tasks.getTask({ path: { task_id: task.id } })).task.status).toBe("in_progress")
    }))

  it.effect("GET /api/agent/users/<handle>: the public profile, without the webhook; 404 for nobody", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      yield* agent.client.profiles.updateProfile({
        payload: { bio: "I read skill docs", webhook_url: "https://example.com/private-hook" }
      })
      const res = yield* rawRequest("GET", `/api/agent/users/${agent.agent.handle.toUpperCase()}`, {
        key: human.api_key
      })
      expect(res.status).toBe(200)
      const own = yield* agent.client.profiles.getProfile()
      const { status: _, webhook_url, ...fields } = own
      expect(webhook_url).toBe("https://example.com/private-hook")
      expect(res.body).toEqual({ status: "success", ...fields })
      expect(res.body).not.toHaveProperty("webhook_url")
      expectError(
        yield* rawRequest("GET", `/api/agent/users/${uniqueHandle("nobody")}`, { key: human.api_key }),
        404,
        "not_found"
      )
      // the static route beside it is not shadowed
      const search = yield* rawRequest("GET", `/api/agent/users/search?q=${agent.agent.handle}`, {
        key: human.api_key
      })
      expect(search.body.users.map((u: { handle: string }) => u.handle)).toContain(agent.agent.handle)
    }))

  it.effect("POST /mission_control/api/wave/complete {wave_id, notes}: the notes become the task comment", () =>
    Effect.gen(function*() {
      const { agent, project } = yield* agentTask
      const { task } = yield* agent.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "this hour", assigned_to: "me", wave_scheduled: hourIso(currentHour()) },
        headers: {}
      })
      const waveId = new Date(currentHour()).toISOString().slice(0, 13).replace(/[-T]/g, "") + agent.agent.handle
      const res = yield* rawRequest("POST", "/mission_control/api/wave/complete", {
        key: agent.api_key,
        body: json({ wave_id: waveId, notes: "shipped the draft" })
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ status: "success", wave_id: waveId, task_id: task.id })
      const read = yield* agent.client.tasks.getTask({ path: { task_id: task.id } })
      expect(read.task.comments.map((c) => [c.id, c.content])).toEqual([[res.body.comment_id, "shipped the draft"]])
    }))

  it.effect("wave complete: comment and notes that disagree are a 400 naming notes, and nothing is completed", () =>
    Effect.gen(function*() {
      const { agent, project } = yield* agentTask
      yield* agent.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "this hour", assigned_to: "me", wave_scheduled: hourIso(currentHour()) },
        headers: {}
      })
      const bad = yield* rawRequest("POST", "/api/agent/wave/complete", {
        key: agent.api_key,
        body: json({ comment: "one", notes: "other" })
      })
      expect(JSON.stringify(expectError(bad, 400, "invalid_request").details)).toContain("notes")
      const slot = (yield* agent.client.waves.mySchedule({ urlParams: {} })).schedule[0]!
      expect(slot.status).not.toBe("completed")
    }))

  it.effect("POST /api/agent/projects/<id>/tasks with priority and due_date; PATCH changes and clears it", () =>
    Effect.gen(function*() {
      const { agent, project } = yield* agentTask
      const created = yield* rawRequest("POST", `/api/agent/projects/${project.id}/tasks`, {
        key: agent.api_key,
        body: json({
          title: "prioritised",
          description: "from the old plugin",
          priority: "high",
          due_date: "2031-05-01T12:00:00Z"
        })
      })
      expect(created.status).toBe(201)
      const id = created.body.task.id
      const read = (yield* agent.client.tasks.getTask({ path: { task_id: id } })).task
      expect(read).toMatchObject({ priority: "high", due_date: "2031-05-01T12:00:00.000Z" })
      yield* rawRequest("PATCH", `/api/agent/tasks/${id}`, { key: agent.api_key, body: json({ priority: "urgent" }) })
      expect((yield* agent.client.tasks.getTask({ path: { task_id: id } })).task.priority).toBe("urgent")
      yield* rawRequest("PATCH", `/api/agent/tasks/${id}`, { key: agent.api_key, body: json({ priority: null }) })
      expect((yield* agent.client.tasks.getTask({ path: { task_id: id } })).task.priority).toBeNull()
      // a task created without it has none, and an unknown value is refused
      const plain = yield* agent.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "plain" },
        headers: {}
      })
      expect(plain.task.priority).toBeNull()
      expectError(
        yield* rawRequest("PATCH", `/api/agent/tasks/${id}`, { key: agent.api_key, body: json({ priority: "asap" }) }),
        400,
        "invalid_request"
      )
    }))

  it.effect("POST /api/agent/teams {name, description}: the squad keeps and returns its description", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const res = yield* rawRequest("POST", "/api/agent/teams", {
        key: agent.api_key,
        body: json({ name: "Old Plugin Squad", description: "made by the older plugin" })
      })
      expect(res.status).toBe(201)
      expect(res.body.team).toMatchObject({ name: "Old Plugin Squad", description: "made by the older plugin" })
      const got = yield* agent.client.teams.getTeam({ path: { team_id: res.body.team.id } })
      expect(got.team.description).toBe("made by the older plugin")
      const mine = yield* agent.client.teams.listTeams({ urlParams: { mine: "true" } })
      expect(mine.teams.find((t) => t.id === got.team.id)?.description).toBe("made by the older plugin")
      // skill_teams.md reads each member's user_type (Shoal's own name for it is type; both are there)
      expect(got.team.members?.map((m) => [m.handle, m.type, m.user_type])).toEqual([
        [agent.agent.handle, "agent", "agent"]
      ])
      // without one, it is empty
      const bare = yield* agent.client.teams.createTeam({ payload: { name: "Bare" }, headers: {} })
      expect(bare.team.description).toBe("")
    }))
})
