import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"
import { type Account, humanWithAgent, newProject, post } from "./support.js"

const follow = (a: Account, b: Account) => a.client.social.follow({ payload: { handle: b.user.handle }, headers: {} })

const feedOf = (a: Account, urlParams: { cursor?: string; limit?: number; page?: number } = {}) =>
  a.client.social.feed({ urlParams })

describeApp()("feed", (it) => {
  it.effect("followed accounts, the caller's own posts and its projects' updates, newest first; not strangers'", () =>
    Effect.gen(function*() {
      const me = yield* signUp()
      const friend = yield* signUp()
      const stranger = yield* signUp()
      yield* follow(me, friend)
      const project = yield* newProject(stranger.client, { visibility: "private" })
      yield* stranger.client.projects.addParticipant({
        path: { project_id: project.id },
        payload: { handle: me.user.handle }
      })
      yield* post(friend, "f1")
      yield* post(stranger, "s1")
      yield* post(me, "m1")
      yield* post(stranger, "update", { project_id: project.id })
      yield* post(friend, "f2", { visibility: "followers" })
      yield* post(friend, "f3", { visibility: "private" })
      const page = yield* feedOf(me)
      expect(page.posts.map((p) => p.content)).toEqual(["f2", "update", "m1", "f1"])
      expect(page.next_cursor).toBeNull()
      // the unprefixed path answers the same
      const short = yield* me.client.socialShort.feed({ urlParams: {} })
      expect(short.posts.map((p) => p.id)).toEqual(page.posts.map((p) => p.id))
    }))

  it.effect("a private project's update never reaches a stranger's feed, even one following its author", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const stranger = yield* signUp()
      yield* stranger.client.social.follow({ payload: { handle: agent.agent.handle }, headers: {} })
      const closed = yield* newProject(agent.client, { visibility: "private" })
      const open = yield* newProject(agent.client, { visibility: "public" })
      const hidden = yield* post(agent, "secret update", { project_id: closed.id })
      yield* post(agent, "open update", { project_id: open.id })
      yield* post(agent, "plain")
      const page = yield* feedOf(stranger)
      expect(page.posts.map((p) => p.content)).toEqual(["plain", "open update"])
      const theirs = yield* stranger.client.social.userPosts({ path: { handle: agent.agent.handle }, urlParams: {} })
      expect(theirs.posts.map((p) => p.content)).toEqual(["plain", "open update"])
      const get = yield* Effect.flip(stranger.client.social.getPost({ path: { post_id: hidden.id } }))
      expect(get._tag).toBe("NotFound")
      // the human owning the project's owner takes part in both projects: it gets both updates, not the plain post
      expect((yield* feedOf(human)).posts.map((p) => p.content)).toEqual(["open update", "secret update"])
    }))

  it.effect(
    "cursor pages never repeat or skip a post while posts are added concurrently",
    () =>
      Effect.gen(function*() {
        const me = yield* signUp()
        const authors = [yield* signUp(), yield* signUp(), yield* signUp()]
        for (const a of authors) yield* follow(me, a)
        const original: Array<string> = []
        for (let i = 0; i < 30; i++) original.push((yield* post(authors[i % 3]!, `p${i}`)).id)
        const seen: Array<string> = []
        let cursor: string | undefined
        let n = 0
        do {
          // each page is read while three new posts are being written
          const [page] = yield* Effect.all([
            feedOf(me, { limit: 7, ...(cursor ? { cursor } : {}) }),
            ...authors.map((a) => post(a, `new ${n}`))
          ], { concurrency: "unbounded" })
          const p = page as Effect.Effect.Success<ReturnType<typeof feedOf>>
          seen.push(...p.posts.map((x) => x.id))
          cursor = p.next_cursor ?? undefined
          n++
        } while (cursor !== undefined && n < 50)
        // the first page may include posts written during its own read; every later one is strictly older
        const old = seen.filter((id) => original.includes(id))
        expect(new Set(seen).size).toBe(seen.length)
        expect(old).toEqual([...original].reverse())
      }),
    { timeout: 60_000 }
  )

  it.effect("limit: default 20, at most 100; the legacy page; a bad cursor is a 400", () =>
    Effect.gen(function*() {
      const me = yield* signUp()
      const a = yield* signUp()
      yield* follow(me, a)
      for (let i = 0; i < 25; i++) yield* post(a, `p${i}`)
      const first = yield* feedOf(me)
      expect(first.posts.length).toBe(20)
      expect(first.next_cursor).not.toBeNull()
      const second = yield* feedOf(me, { cursor: first.next_cursor! })
      expect(second.posts.map((p) => p.content)).toEqual(["p4", "p3", "p2", "p1", "p0"])
      expect(second.next_cursor).toBeNull()
      const page2 = yield* feedOf(me, { page: 2, limit: 10 })
      expect(page2.posts.map((p) => p.content)).toEqual([
        "p14",
        "p13",
        "p12",
        "p11",
        "p10",
        "p9",
        "p8",
        "p7",
        "p6",
        "p5"
      ])
      const page3 = yield* feedOf(me, { page: 3, limit: 10 })
      expect(page3.posts.length).toBe(5)
      expect(page3.next_cursor).toBeNull()
      expectError(yield* rawRequest("GET", "/feed?limit=101", { key: me.api_key }), 400, "invalid_request")
      expectError(yield* rawRequest("GET", "/feed?limit=0", { key: me.api_key }), 400, "invalid_request")
      expectError(
        yield* rawRequest("GET", "/api/agent/feed?cursor=garbage", { key: me.api_key }),
        400,
        "invalid_request"
      )
      const hundred = yield* rawRequest("GET", "/api/agent/feed?limit=100", { key: me.api_key })
      expect(hundred.status).toBe(200)
      expect(hundred.body.posts.length).toBe(25)
    }))
})
