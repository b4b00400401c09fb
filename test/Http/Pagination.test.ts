import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { expectError, rawRequest, type RawResponse } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"

/** Every page of a cursor list, following `next_cursor` until it is null. */
const walk = (path: string, key: string, field: string) =>
  Effect.gen(function*() {
    const pages: Array<Array<string>> = []
    let cursor: string | null = null
    do {
      const sep = path.includes("?") ? "&" : "?"
      const res: RawResponse = yield* rawRequest("GET", cursor === null ? path : `${path}${sep}cursor=${cursor}`, {
        key
      })
      expect(res.status).toBe(200)
      expect(res.body).toHaveProperty("next_cursor")
      pages.push((res.body[field] as Array<{ id: string }>).map((x) => x.id))
      cursor = res.body.next_cursor
    } while (cursor !== null && pages.length < 20)
    return pages
  })

// one cursor style for lists (the feed's): `cursor` in, `limit`, `next_cursor` out, null at the end; the spec's own
// styles stay where it fixes them (projects page/limit, transactions limit/offset, the event stream's `after`)
describeApp()("pagination", (it) => {
  it.effect("messages: newest first in pages of `limit`, next_cursor to the next, null at the end", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const sent: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const r = yield* rawRequest("POST", "/api/agent/message", {
          key: human.api_key,
          body: JSON.stringify({ recipient_handle: agent.agent.handle, content: `m${i}` })
        })
        expect(r.status).toBe(201)
        sent.push(r.body.message.id)
      }
      const pages = yield* walk("/api/agent/messages?limit=2", agent.api_key, "messages")
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1])
      expect(pages.flat()).toEqual([...sent].reverse())
      // without a limit, one page and the end
      const all = yield* rawRequest("GET", "/api/agent/messages", { key: agent.api_key })
      expect(all.body.messages).toHaveLength(5)
      expect(all.body.next_cursor).toBeNull()
      expectError(
        yield* rawRequest("GET", "/api/agent/messages?cursor=nonsense", { key: agent.api_key }),
        400,
        "invalid_request"
      )
    }))

  it.effect("task lists (project and mine): cursor pages oldest first; the legacy page still works", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const p = yield* newProject(human.client)
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const r = yield* human.client.tasks.createTask({
          path: { project_id: p.id },
          payload: { title: `t${i}`, assigned_to: agent.agent.handle },
          headers: {}
        })
        ids.push(r.task.id)
      }
      for (const path of [`/api/agent/projects/${p.id}/tasks?limit=2`, `/projects/${p.id}/tasks?limit=2`]) {
        const pages = yield* walk(path, human.api_key, "tasks")
        expect(pages.map((x) => x.length)).toEqual([2, 2, 1])
        expect(pages.flat()).toEqual(ids)
      }
      const mine = yield* walk("/api/agent/tasks?limit=3", agent.api_key, "tasks")
      expect(mine.flat()).toEqual(ids)

      const legacy = yield* rawRequest("GET", `/api/agent/projects/${p.id}/tasks?page=2&limit=2`, {
        key: human.api_key
      })
      expect(legacy.body.tasks.map((t: { id: string }) => t.id)).toEqual(ids.slice(2, 4))
      expect(legacy.body.meta).toEqual({ total: 5, pages: 3, page: 2, limit: 2 })
      expect(legacy.body.next_cursor).not.toBeNull()
      const last = yield* rawRequest("GET", `/api/agent/projects/${p.id}/tasks?page=3&limit=2`, { key: human.api_key })
      expect(last.body.next_cursor).toBeNull()
      // the typed client sees the same
      const typed = yield* human.client.tasks.listTasks({ path: { project_id: p.id }, urlParams: { limit: 4 } })
      expect(typed.tasks).toHaveLength(4)
      const rest = yield* human.client.tasks.listTasks({
        path: { project_id: p.id },
        urlParams: { limit: 4, cursor: typed.next_cursor! }
      })
      expect(rest.tasks.map((t) => t.id)).toEqual([ids[4]])
      expect(rest.next_cursor).toBeNull()
      expectError(
        yield* rawRequest("GET", `/api/agent/tasks?cursor=${"x".repeat(20)}`, { key: agent.api_key }),
        400,
        "invalid_request"
      )
    }))

  it.effect("followers and following: cursor pages newest first, total counts them all; the legacy page works", () =>
    Effect.gen(function*() {
      const { human: star } = yield* humanWithAgent
      const fans: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const { human } = yield* humanWithAgent
        yield* rawRequest("POST", "/api/agent/follow", {
          key: human.api_key,
          body: JSON.stringify({ handle: star.user.handle })
        })
        fans.push(human.user.id)
      }
      const pages = yield* walk(`/api/agent/users/${star.user.handle}/followers?limit=2`, star.api_key, "followers")
      expect(pages.map((p) => p.length)).toEqual([2, 1])
      expect(pages.flat()).toEqual([...fans].reverse())
      const second = yield* rawRequest("GET", `/api/agent/users/${star.user.handle}/followers?page=2&limit=2`, {
        key: star.api_key
      })
      expect(second.body.followers.map((f: { id: string }) => f.id)).toEqual([fans[0]])
      expect(second.body.total).toBe(3)
      expect(second.body.next_cursor).toBeNull()
      const following = yield* rawRequest("GET", `/api/agent/users/me/following?limit=1`, { key: star.api_key })
      expect(following.body).toMatchObject({ following: [], total: 0, next_cursor: null })
    }))

  it.effect("kept as the spec fixes them: projects page/limit/meta, the feed's legacy page, events' after", () =>
    Effect.gen(function*() {
      const { human } = yield* humanWithAgent
      yield* newProject(human.client)
      const projects = yield* rawRequest("GET", "/api/agent/projects?mine=true&page=1&limit=1", { key: human.api_key })
      expect(projects.body.meta).toMatchObject({ page: 1, limit: 1 })
      const feed = yield* rawRequest("GET", "/api/agent/feed?page=1&limit=5", { key: human.api_key })
      expect(feed.status).toBe(200)
      expect(feed.body).toHaveProperty("next_cursor")
      const events = yield* rawRequest("GET", "/api/agent/events?limit=500", { key: human.api_key })
      expect(typeof events.body.next_cursor).toBe("number")
      const after = yield* rawRequest("GET", `/api/agent/events?after=${events.body.next_cursor}`, {
        key: human.api_key
      })
      expect(after.body.next_cursor).toBe(events.body.next_cursor)
    }))
})
