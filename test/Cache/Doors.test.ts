import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { createAgent, signUp } from "../support/TestApp.js"
import { describeWallet, walletClient, walletRaw } from "../Wallet/support.js"

// Every door a write comes in by (a REST path, its alias, an MCP tools/call alone or in a batch) must drop the
// caches a reader's next request is answered from, on this node, before the write is answered: no sleep below.
// An hour of TTL and no commit notices, so nothing but the write's own invalidation can make a change show.
const config = { READ_CACHE_TTL: "3600 seconds", READ_CACHE_NOTICES: "false" }

type Args = Record<string, unknown>

interface Door {
  readonly name: string
  readonly write: (key: string, args: Args) => Effect.Effect<any, unknown, any>
}

const succeeded = (name: string, r: { readonly status: number; readonly body: any }) =>
  r.status >= 200 && r.status < 300
    ? Effect.succeed(r.body)
    : Effect.dieMessage(`${name}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`)

/** `path`'s `:name` parts come from `args`; the rest of `args` is the JSON body. */
const fill = (path: string, args: Args) => {
  const body = { ...args }
  const url = path.replace(/:(\w+)/g, (_, k: string) => {
    delete body[k]
    return String(args[k])
  })
  return { url, body }
}

const rest = (method: "POST" | "PATCH", path: string): Door => ({
  name: `${method} ${path}`,
  write: (key, args) => {
    const { body, url } = fill(path, args)
    return Effect.flatMap(
      rawRequest(method, url, { key, body: JSON.stringify(body) }),
      (r) => succeeded(`${method} ${url}`, r)
    )
  }
})

/** A REST write on the wallet API's own port (the Gems routes live there). */
const walletRest = (path: string): Door => ({
  name: `POST ${path} (wallet API)`,
  write: (key, args) => Effect.flatMap(walletRaw("POST", path, { key, body: args }), (r) => succeeded(path, r))
})

const toolCall = (id: number, name: string, args: Args) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args }
})

/** A tool's answer: its text content parsed, or the test dies with what the tool said. */
const toolResult = (name: string, answer: any) =>
  answer?.result?.isError === false
    ? Effect.succeed(JSON.parse(answer.result.content[0].text))
    : Effect.dieMessage(`${name}: ${JSON.stringify(answer).slice(0, 400)}`)

const mcpPost = (key: string, message: unknown) =>
  rawRequest("POST", "/mcp", {
    key,
    body: JSON.stringify(message),
    headers: { accept: "application/json, text/event-stream" }
  })

/** `tools/call` as the only message of `POST /mcp`. */
const mcp = (tool: string): Door => ({
  name: `MCP ${tool}`,
  write: (key, args) => Effect.flatMap(mcpPost(key, toolCall(1, tool, args)), (r) => toolResult(tool, r.body))
})

/** `tools/call` inside a JSON-RPC batch (each message of a batch is run on its own). */
const mcpBatch = (tool: string): Door => ({
  name: `MCP ${tool} in a batch`,
  write: (key, args) =>
    Effect.flatMap(
      mcpPost(key, [toolCall(1, "whoami", {}), toolCall(2, tool, args)]),
      (r) => toolResult(tool, Array.isArray(r.body) ? r.body[1] : r.body)
    )
})

const get = (path: string, key: string) => Effect.flatMap(rawRequest("GET", path, { key }), (r) => succeeded(path, r))

/** The reader's feed page, at both of its paths (one handler, one cache entry). */
const feed = (key: string) =>
  Effect.gen(function*() {
    const long = yield* get("/api/agent/feed", key)
    const short = yield* get("/feed", key)
    expect(short.posts).toEqual(long.posts)
    return long.posts as Array<any>
  })

/** A project's first page of tasks, at both of its paths. */
const tasks = (key: string, projectId: string) =>
  Effect.gen(function*() {
    const long = yield* get(`/api/agent/projects/${projectId}/tasks`, key)
    const short = yield* get(`/projects/${projectId}/tasks`, key)
    expect(short.tasks).toEqual(long.tasks)
    return long.tasks as Array<any>
  })

const me = (key: string) => Effect.map(get("/api/agent/me", key), (r) => r.user as any)

/** Reads twice, so the page is cached (the second read is answered from the cache), and returns what it read. */
const warm = <A, E, R>(read: Effect.Effect<A, E, R>) => Effect.zipRight(read, read)

const postDoors = [
  rest("POST", "/api/agent/posts"),
  rest("POST", "/api/agent/post"),
  rest("POST", "/post"),
  mcp("post"),
  mcpBatch("post")
]
const postCommentDoors = [rest("POST", "/api/agent/comment"), rest("POST", "/comment"), mcp("comment_on_post")]
const voteDoors = [rest("POST", "/api/agent/vote"), rest("POST", "/vote"), mcp("vote"), mcpBatch("vote")]
const followDoors = [rest("POST", "/api/agent/follow"), rest("POST", "/follow"), mcp("follow")]
const unfollowDoors = [rest("POST", "/api/agent/unfollow"), rest("POST", "/unfollow")]

const createTaskDoors = [
  rest("POST", "/api/agent/projects/:project_id/tasks"),
  rest("POST", "/projects/:project_id/tasks"),
  mcp("create_task"),
  mcpBatch("create_task")
]
const updateTaskDoors = [
  rest("POST", "/api/agent/tasks/:task_id/update"),
  rest("PATCH", "/api/agent/tasks/:task_id"),
  rest("POST", "/tasks/:task_id/update"),
  mcp("update_task")
]
const taskCommentDoors = [
  rest("POST", "/api/agent/tasks/:task_id/comment"),
  rest("POST", "/api/agent/tasks/:task_id/comments"),
  rest("POST", "/tasks/:task_id/comment"),
  mcp("comment_on_task")
]
const completeDoors = [rest("POST", "/api/agent/tasks/:task_id/complete"), mcp("complete_task")]
const rescheduleDoors = [
  rest("POST", "/api/agent/tasks/:task_id/reschedule"),
  rest("POST", "/tasks/:task_id/reschedule")
]
const transferDoors = [walletRest("/api/gems/transfer"), mcp("gems_transfer"), mcpBatch("gems_transfer")]

/** Two accounts: `author` writes, `reader` follows it (so both feeds show the author's posts). */
const pair = Effect.gen(function*() {
  const author = yield* signUp()
  const reader = yield* signUp()
  yield* reader.client.social.follow({ payload: { handle: author.user.handle }, headers: {} })
  return { author, reader }
})

describeWallet(config)("a write through each door drops the feed pages it changes", (it) => {
  for (const door of postDoors) {
    it.effect(`a post (${door.name}) shows in the author's and a follower's next feed read`, () =>
      Effect.gen(function*() {
        const { author, reader } = yield* pair
        expect(yield* warm(feed(author.api_key))).toEqual([])
        expect(yield* warm(feed(reader.api_key))).toEqual([])
        yield* door.write(author.api_key, { content: `by ${door.name}` })
        expect((yield* feed(author.api_key)).map((p) => p.content)).toEqual([`by ${door.name}`])
        expect((yield* feed(reader.api_key)).map((p) => p.content)).toEqual([`by ${door.name}`])
      }))
  }

  for (const door of postCommentDoors) {
    it.effect(`a comment on a post (${door.name}) shows in the next feed read's comment count`, () =>
      Effect.gen(function*() {
        const { author, reader } = yield* pair
        const post = yield* author.client.social.createPost({ payload: { content: "hello" }, headers: {} })
        expect((yield* warm(feed(author.api_key)))[0].comment_count).toBe(0)
        yield* door.write(reader.api_key, { post_id: post.post.id, content: "hi" })
        expect((yield* feed(author.api_key))[0].comment_count).toBe(1)
      }))
  }

  for (const door of voteDoors) {
    it.effect(`a vote (${door.name}) shows in the next feed read's score and the voter's my_vote`, () =>
      Effect.gen(function*() {
        const { author, reader } = yield* pair
        const post = yield* author.client.social.createPost({ payload: { content: "hello" }, headers: {} })
        expect((yield* warm(feed(author.api_key)))[0].score).toBe(0)
        expect((yield* warm(feed(reader.api_key)))[0]).toMatchObject({ score: 0, my_vote: 0 })
        yield* door.write(reader.api_key, { post_id: post.post.id, vote: 1 })
        expect((yield* feed(author.api_key))[0].score).toBe(1)
        expect((yield* feed(reader.api_key))[0]).toMatchObject({ score: 1, my_vote: 1 })
      }))
  }

  for (const door of followDoors) {
    it.effect(`a follow (${door.name}) brings the followed account's posts into the next feed read`, () =>
      Effect.gen(function*() {
        const author = yield* signUp()
        const reader = yield* signUp()
        yield* author.client.social.createPost({ payload: { content: "hello" }, headers: {} })
        expect(yield* warm(feed(reader.api_key))).toEqual([])
        yield* door.write(reader.api_key, { handle: author.user.handle })
        expect((yield* feed(reader.api_key)).map((p) => p.content)).toEqual(["hello"])
      }))
  }

  for (const door of unfollowDoors) {
    it.effect(`an unfollow (${door.name}) takes the account's posts out of the next feed read`, () =>
      Effect.gen(function*() {
        const { author, reader } = yield* pair
        yield* author.client.social.createPost({ payload: { content: "hello" }, headers: {} })
        expect((yield* warm(feed(reader.api_key))).length).toBe(1)
        yield* door.write(reader.api_key, { handle: author.user.handle })
        expect(yield* feed(reader.api_key)).toEqual([])
      }))
  }
})

/** An agent's project with one task assigned to it, and the project's page of tasks cached for agent and owner. */
const assignedTask = Effect.gen(function*() {
  const { agent, human } = yield* humanWithAgent
  const project = yield* newProject(agent.client)
  const created = yield* agent.client.tasks.createTask({
    path: { project_id: project.id },
    payload: { title: "one", assigned_to: "me" },
    headers: {}
  })
  expect((yield* warm(tasks(agent.api_key, project.id))).map((t) => t.title)).toEqual(["one"])
  expect((yield* warm(tasks(human.api_key, project.id))).length).toBe(1)
  return { agent, human, project, task: created.task }
})

describeWallet(config)("a write through each door drops the pages of tasks it changes", (it) => {
  for (const door of createTaskDoors) {
    it.effect(`a new task (${door.name}) shows in the next read of the project's tasks`, () =>
      Effect.gen(function*() {
        const { agent, human, project } = yield* assignedTask
        yield* door.write(agent.api_key, { project_id: project.id, title: "two" })
        expect((yield* tasks(agent.api_key, project.id)).map((t) => t.title)).toEqual(["one", "two"])
        expect((yield* tasks(human.api_key, project.id)).map((t) => t.title)).toEqual(["one", "two"])
      }))
  }

  for (const door of updateTaskDoors) {
    it.effect(`a task update (${door.name}) shows in the next read of the project's tasks`, () =>
      Effect.gen(function*() {
        const { agent, human, project, task } = yield* assignedTask
        yield* door.write(agent.api_key, { task_id: task.id, title: "uno", status: "in_progress" })
        expect((yield* tasks(agent.api_key, project.id))[0]).toMatchObject({ title: "uno", status: "in_progress" })
        expect((yield* tasks(human.api_key, project.id))[0]).toMatchObject({ title: "uno", status: "in_progress" })
      }))
  }

  for (const door of taskCommentDoors) {
    it.effect(`a task comment (${door.name}) shows in the next read's comment count`, () =>
      Effect.gen(function*() {
        const { agent, human, project, task } = yield* assignedTask
        yield* door.write(agent.api_key, { task_id: task.id, content: "progress" })
        expect((yield* tasks(agent.api_key, project.id))[0].comment_count).toBe(1)
        expect((yield* tasks(human.api_key, project.id))[0].comment_count).toBe(1)
      }))
  }

  for (const door of completeDoors) {
    it.effect(`a completion (${door.name}) shows in the next read of the project's tasks`, () =>
      Effect.gen(function*() {
        const { agent, human, project, task } = yield* assignedTask
        yield* door.write(agent.api_key, { task_id: task.id })
        expect((yield* tasks(agent.api_key, project.id))[0].status).toBe("completed")
        expect((yield* tasks(human.api_key, project.id))[0].status).toBe("completed")
      }))
  }

  for (const door of rescheduleDoors) {
    it.effect(`a reschedule (${door.name}) shows in the next read's Wave hour`, () =>
      Effect.gen(function*() {
        const { agent, project, task } = yield* assignedTask
        const hour = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 3_600_000)
        yield* door.write(agent.api_key, { task_id: task.id, wave_time: hour.toISOString() })
        const seen = (yield* tasks(agent.api_key, project.id))[0].wave_scheduled
        expect(new Date(seen).getTime()).toBe(hour.getTime())
      }))
  }
})

describeWallet(config)("a write through each door drops the cached row behind /api/agent/me", (it) => {
  it.effect("a profile change (PATCH /api/agent/profile) shows in the next /me", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      expect((yield* warm(me(agent.api_key))).display_name).toBe("Worker Agent")
      yield* rest("PATCH", "/api/agent/profile").write(agent.api_key, { display_name: "Renamed" })
      expect((yield* me(agent.api_key)).display_name).toBe("Renamed")
    }))

  for (const door of transferDoors) {
    it.effect(`a Gems transfer (${door.name}) shows in both agents' next /me`, () =>
      Effect.gen(function*() {
        const { agent, human } = yield* humanWithAgent
        const peer = yield* createAgent((yield* signUp()).api_key)
        const wallet = yield* walletClient(human.api_key)
        yield* wallet.account.award({ payload: { to_agent: agent.agent.id, amount: 20 }, headers: {} })
        expect((yield* warm(me(agent.api_key))).svc_gems).toBe(20)
        expect((yield* warm(me(peer.api_key))).svc_gems).toBe(0)
        yield* door.write(agent.api_key, { to_agent: peer.agent.handle, amount: 5 })
        expect((yield* me(agent.api_key)).svc_gems).toBe(15)
        expect((yield* me(peer.api_key)).svc_gems).toBe(5)
      }))
  }

  for (const door of createTaskDoors) {
    it.effect(`a bounty (${door.name}) shows in its funder's next /me escrow`, () =>
      Effect.gen(function*() {
        const human = yield* signUp()
        const project = yield* newProject(human.client)
        expect((yield* warm(me(human.api_key))).gems_escrow).toBe(0)
        expect(yield* warm(tasks(human.api_key, project.id))).toEqual([])
        yield* door.write(human.api_key, { project_id: project.id, title: "paid", gem_bounty: 30 })
        expect((yield* me(human.api_key)).gems_escrow).toBe(30)
        expect((yield* tasks(human.api_key, project.id))[0]).toMatchObject({ title: "paid", gem_bounty: 30 })
      }))
  }
})
