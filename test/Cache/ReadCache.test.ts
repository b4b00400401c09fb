import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Context, Duration, Effect, Layer } from "effect"
import { Pglite } from "../../src/Database/PgliteClient.js"
import { failure, humanWithAgent, newProject } from "../Projects/support.js"
import { AppNode, client, configLayer, createAgent, describeApp, signUp } from "../support/TestApp.js"
import { TestDatabase, usingServer } from "../support/TestDatabase.js"

// an hour: a change seen below comes from an invalidation, never from an entry running out
const config = { READ_CACHE_TTL: "3600 seconds" }
// and without commit notices: what this node wrote is seen from its own requests' invalidation alone
const alone = { ...config, READ_CACHE_NOTICES: "false" }

type Client = Effect.Effect.Success<ReturnType<typeof client>>

const page = (c: Client, projectId: string) =>
  c.tasks.listTasks({ path: { project_id: projectId as Ids.ProjectId }, urlParams: {} })

const feed = (c: Client) => c.social.feed({ urlParams: {} })

/** `read` until `done` holds, for at most `within` of real time (a notice from another node takes a moment). */
const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean, within = Duration.seconds(3)) =>
  Effect.gen(function*() {
    const until = Date.now() + Duration.toMillis(within)
    let last = yield* read
    while (!done(last) && Date.now() < until) {
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 25)))
      last = yield* read
    }
    return last
  })

/**
 * A second node on the same database: its own caches, notifier and HTTP server (embedded, it shares this file's
 * PGlite session; against a server, its own pool and LISTEN connection). Returns a client factory aimed at it.
 */
const secondNode = Effect.gen(function*() {
  const shared = yield* Effect.context<SqlClient.SqlClient>()
  const database = usingServer()
    ? TestDatabase
    : Layer.succeedContext(Context.pick(SqlClient.SqlClient, Pglite)(shared as Context.Context<any>))
  const context = yield* Layer.build(AppNode(database).pipe(Layer.provide(configLayer(config))))
  return (key: string) => Effect.provide(client(key), context)
})

describeApp(alone)("read cache, this node: a page of tasks", (it) => {
  it.effect("each write on this node shows in the next read of the page", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const c = agent.client
      const p = yield* newProject(c)
      const other = yield* newProject(c)
      const t = yield* c.tasks.createTask({ path: { project_id: p.id }, payload: { title: "one" }, headers: {} })
      const task_id = t.task.id
      expect((yield* page(c, p.id)).tasks.map((x) => x.title)).toEqual(["one"])
      yield* page(c, p.id) // cached now

      yield* c.tasks.createTask({ path: { project_id: p.id }, payload: { title: "two" }, headers: {} })
      expect((yield* page(c, p.id)).tasks.map((x) => x.title)).toEqual(["one", "two"])
      yield* c.tasks.updateTask({ path: { task_id }, payload: { title: "uno", assigned_to: "me" } })
      const updated = (yield* page(c, p.id)).tasks[0]!
      expect(updated.title).toBe("uno")
      expect(updated.assigned_to?.display_name).toBe("Worker Agent")
      yield* c.profiles.updateProfile({ payload: { display_name: "Renamed Agent" } })
      expect((yield* page(c, p.id)).tasks[0]!.assigned_to?.display_name).toBe("Renamed Agent")
      yield* c.tasks.createComment({ path: { task_id }, payload: { content: "c" }, headers: {} })
      expect((yield* page(c, p.id)).tasks[0]!.comment_count).toBe(1)
      yield* c.tasks.completeTask({ path: { task_id }, payload: {} })
      expect((yield* page(c, p.id)).tasks[0]!.status).toBe("completed")
      // (not archived: an archived task leaves the default page, test/Projects/ArchivedTasks.test.ts)
      yield* c.tasks.updateTask({ path: { task_id }, payload: { status: "cancelled" } })
      expect((yield* page(c, p.id)).tasks[0]!.status).toBe("cancelled")
      yield* c.tasks.updateTask({ path: { task_id }, payload: { project_id: other.id } })
      expect((yield* page(c, p.id)).tasks.map((x) => x.title)).toEqual(["two"])
      expect((yield* page(c, other.id)).tasks.map((x) => x.title)).toEqual(["uno"])
      yield* c.projects.moveTasks({ path: { project_id: p.id }, payload: { target_project_id: other.id } })
      expect((yield* page(c, p.id)).tasks).toEqual([])
      expect((yield* page(c, other.id)).meta.total).toBe(2)
      // the human owning the agent reads too: its own entry, dropped by the same writes
      expect((yield* page(human.client, other.id)).meta.total).toBe(2)
      yield* c.tasks.createTask({ path: { project_id: other.id }, payload: { title: "three" }, headers: {} })
      expect((yield* page(human.client, other.id)).meta.total).toBe(3)
    }))

  it.effect("a cached page never reaches a viewer who may not see it", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const stranger = yield* signUp()
      const p = yield* newProject(agent.client, { visibility: "public" })
      yield* agent.client.tasks.createTask({ path: { project_id: p.id }, payload: { title: "t" }, headers: {} })
      expect((yield* page(stranger.client, p.id)).tasks.length).toBe(1)
      expect((yield* page(agent.client, p.id)).tasks.length).toBe(1)
      yield* agent.client.projects.updateProject({ path: { project_id: p.id }, payload: { visibility: "private" } })
      // both pages were cached; the member's is still served, the stranger's is gone with its access
      expect((yield* page(agent.client, p.id)).tasks.length).toBe(1)
      expect((yield* failure(page(stranger.client, p.id)))._tag).toBe("NotFound")
      yield* agent.client.projects.addParticipant({
        path: { project_id: p.id },
        payload: { handle: stranger.user.handle }
      })
      expect((yield* page(stranger.client, p.id)).tasks.length).toBe(1)
    }))
})

describeApp(alone)("read cache, this node: the feed", (it) => {
  it.effect("follows, posts, votes, comments, renames and unfollows show in the next read of the feed", () =>
    Effect.gen(function*() {
      const reader = yield* signUp()
      const author = yield* signUp()
      const c = reader.client
      const first = yield* author.client.social.createPost({ payload: { content: "hello" }, headers: {} })
      expect((yield* feed(c)).posts).toEqual([])
      yield* feed(c) // cached now

      yield* c.social.follow({ payload: { handle: author.user.handle }, headers: {} })
      expect((yield* feed(c)).posts.map((x) => x.content)).toEqual(["hello"])
      yield* c.social.vote({ payload: { post_id: first.post.id, vote: 1 }, headers: {} })
      expect((yield* feed(c)).posts[0]).toMatchObject({ score: 1, my_vote: 1 })
      yield* c.social.comment({ payload: { post_id: first.post.id, content: "hi" }, headers: {} })
      expect((yield* feed(c)).posts[0]!.comment_count).toBe(1)
      yield* author.client.profiles.updateProfile({ payload: { display_name: "New Name" } })
      expect((yield* feed(c)).posts[0]!.author.display_name).toBe("New Name")
      // the reader's own post
      yield* c.social.createPost({ payload: { content: "mine" }, headers: {} })
      expect((yield* feed(c)).posts.map((x) => x.content)).toEqual(["mine", "hello"])
      yield* c.social.unfollow({ payload: { handle: author.user.handle } })
      expect((yield* feed(c)).posts.map((x) => x.content)).toEqual(["mine"])
    }))
})

describeApp(config)("read cache, other nodes: commit notices", (it) => {
  it.scoped("a write on another node, or by SQL outside any request, reaches this node's cached page", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const t = yield* agent.client.tasks.createTask({
        path: { project_id: p.id },
        payload: { title: "before" },
        headers: {}
      })
      expect((yield* page(agent.client, p.id)).tasks[0]!.title).toBe("before")
      const elsewhere = yield* (yield* secondNode)(agent.api_key)
      expect((yield* page(elsewhere, p.id)).tasks[0]!.title).toBe("before")

      yield* elsewhere.tasks.updateTask({ path: { task_id: t.task.id }, payload: { title: "after" } })
      // the writing node at once; this one on the commit notice
      expect((yield* page(elsewhere, p.id)).tasks[0]!.title).toBe("after")
      const seen = yield* eventually(page(agent.client, p.id), (r) => r.tasks[0]!.title === "after")
      expect(seen.tasks[0]!.title).toBe("after")

      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE tasks SET title = 'by a worker' WHERE id = ${t.task.id}`
      for (const c of [agent.client, elsewhere]) {
        const r = yield* eventually(page(c, p.id), (r) => r.tasks[0]!.title === "by a worker")
        expect(r.tasks[0]!.title).toBe("by a worker")
      }
    }))

  it.scoped("another node's post reaches this node's cached feed on the commit notice", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const author = yield* createAgent(human.api_key)
      const reader = yield* signUp()
      yield* reader.client.social.follow({ payload: { handle: author.agent.handle }, headers: {} })
      expect((yield* feed(reader.client)).posts).toEqual([])
      const elsewhere = yield* (yield* secondNode)(author.api_key)
      yield* elsewhere.social.createPost({ payload: { content: "from afar" }, headers: {} })
      const seen = yield* eventually(feed(reader.client), (r) => r.posts.length === 1)
      expect(seen.posts.map((x) => x.content)).toEqual(["from afar"])
    }))
})
