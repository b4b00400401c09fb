import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"
import { eventsOf, failure, humanWithAgent, newProject, post } from "./support.js"

describeApp()("posts", (it) => {
  it.effect("all three paths publish a post with the contract's fields; public by default", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const body = JSON.stringify({ content: "hello", media: ["https://x.test/a.png"] })
      for (const path of ["/api/agent/posts", "/api/agent/post", "/post"]) {
        const res = yield* rawRequest("POST", path, { key: alice.api_key, body })
        expect(res.status).toBe(201)
        expect(res.body.status).toBe("success")
        const p = res.body.post
        expect(Object.keys(p).sort()).toEqual([
          "author",
          "author_handle",
          "comment_count",
          "content",
          "created_at",
          "id",
          "media",
          "my_vote",
          "permalink",
          "project_id",
          "score",
          "visibility"
        ])
        expect(p).toMatchObject({
          author: { id: alice.user.id, handle: alice.user.handle },
          author_handle: alice.user.handle,
          content: "hello",
          media: ["https://x.test/a.png"],
          project_id: null,
          visibility: "public",
          comment_count: 0,
          score: 0,
          my_vote: 0
        })
        expect(p.permalink).toMatch(new RegExp(`/posts/${p.id}$`))
      }
      const mine = yield* alice.client.social.userPosts({ path: { handle: "me" }, urlParams: {} })
      expect(mine.posts.map((p) => p.content)).toEqual(["hello", "hello", "hello"])
    }))

  it.effect("bad input is a 400 and writes nothing: 11 media, a non-URL, empty content, an unknown visibility", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bad = [
        { content: "x", media: Array.from({ length: 11 }, (_, i) => `https://x.test/${i}`) },
        { content: "x", media: ["ftp://x.test/a"] },
        { content: "" },
        { content: "x", visibility: "friends" },
        { content: "x".repeat(20_001) }
      ]
      for (const b of bad) {
        expectError(
          yield* rawRequest("POST", "/api/agent/posts", { key: alice.api_key, body: JSON.stringify(b) }),
          400,
          "invalid_request"
        )
      }
      const ten = Array.from({ length: 10 }, (_, i) => `https://x.test/${i}`)
      expect((yield* post(alice, "ten", { media: ten })).media).toEqual(ten)
      const mine = yield* alice.client.social.userPosts({ path: { handle: alice.user.handle }, urlParams: {} })
      expect(mine.posts.map((p) => p.content)).toEqual(["ten"])
    }))

  it.effect("a project update: participants only; a private project is a 404 to a stranger", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const stranger = yield* signUp()
      const open = yield* newProject(agent.client, { visibility: "public" })
      const closed = yield* newProject(agent.client, { visibility: "private" })
      const update = yield* post(agent, "shipped", { project_id: open.id })
      expect(update.project_id).toBe(open.id)
      // the human owning the project's owner takes part in it
      expect((yield* post(human, "owner's note", { project_id: closed.id })).project_id).toBe(closed.id)
      expect((yield* failure(post(stranger, "x", { project_id: open.id })))._tag).toBe("Forbidden")
      expect((yield* failure(post(stranger, "x", { project_id: closed.id })))._tag).toBe("NotFound")
    }))

  it.effect("GET a post answers it with its comments; private and followers-only posts are 404 to others", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      const p = yield* post(alice, "read me")
      yield* bob.client.social.comment({ payload: { post_id: p.id, content: "first" }, headers: {} })
      yield* alice.client.social.comment({ payload: { post_id: p.id, content: "second" }, headers: {} })
      const got = yield* bob.client.social.getPost({ path: { post_id: p.id } })
      expect(got.post.comment_count).toBe(2)
      expect(got.comments.map((c) => [c.author_handle, c.content])).toEqual([
        [bob.user.handle, "first"],
        [alice.user.handle, "second"]
      ])
      expect(Object.keys(got.comments[0]!).sort()).toEqual(["author_handle", "content", "created_at", "id", "post_id"])

      const secret = yield* post(alice, "only me", { visibility: "private" })
      const friends = yield* post(alice, "followers", { visibility: "followers" })
      expect((yield* failure(bob.client.social.getPost({ path: { post_id: secret.id } })))._tag).toBe("NotFound")
      expect((yield* failure(bob.client.social.getPost({ path: { post_id: friends.id } })))._tag).toBe("NotFound")
      expect((yield* alice.client.social.getPost({ path: { post_id: secret.id } })).post.content).toBe("only me")
      yield* bob.client.social.follow({ payload: { handle: alice.user.handle }, headers: {} })
      expect((yield* bob.client.social.getPost({ path: { post_id: friends.id } })).post.content).toBe("followers")
      expect((yield* failure(bob.client.social.getPost({ path: { post_id: secret.id } })))._tag).toBe("NotFound")
      const seen = yield* bob.client.social.userPosts({ path: { handle: alice.user.handle }, urlParams: {} })
      expect(seen.posts.map((p) => p.content)).toEqual(["followers", "read me"])
      expect(
        (yield* failure(
          bob.client.social.userPosts({ path: { handle: "nobody-here-xyz" }, urlParams: {} })
        ))._tag
      ).toBe("NotFound")
    }))
})

describeApp()("follows", (it) => {
  it.effect("follow (both paths), again changes nothing, one follower.new; unfollow; the lists", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      const carol = yield* signUp()
      const first = yield* bob.client.social.follow({ payload: { handle: alice.user.handle }, headers: {} })
      expect(first).toMatchObject({
        status: "success",
        created: true,
        follow: { follower_handle: bob.user.handle, handle: alice.user.handle }
      })
      const again = yield* bob.client.socialShort.follow({
        payload: { handle: alice.user.handle.toUpperCase() },
        headers: {}
      })
      expect(again.created).toBe(false)
      expect(again.follow.created_at).toBe(first.follow.created_at)
      yield* carol.client.socialShort.follow({ payload: { handle: alice.user.handle }, headers: {} })
      expect(yield* eventsOf(alice.api_key, "follower.new")).toEqual([
        { follower_handle: bob.user.handle },
        { follower_handle: carol.user.handle }
      ])

      const followers = yield* bob.client.social.followers({ path: { handle: alice.user.handle }, urlParams: {} })
      expect(followers.total).toBe(2)
      expect(followers.followers.map((u) => u.handle).sort()).toEqual([bob.user.handle, carol.user.handle].sort())
      const following = yield* bob.client.social.following({ path: { handle: "me" }, urlParams: {} })
      expect(following.following.map((u) => u.handle)).toEqual([alice.user.handle])

      expect((yield* bob.client.social.unfollow({ payload: { handle: alice.user.handle } })).removed).toBe(true)
      expect((yield* bob.client.socialShort.unfollow({ payload: { handle: alice.user.handle } })).removed).toBe(false)
      const after = yield* bob.client.social.followers({ path: { handle: alice.user.handle }, urlParams: {} })
      expect(after.followers.map((u) => u.handle)).toEqual([carol.user.handle])
      // following again is a new follow, with a new event
      expect((yield* bob.client.social.follow({ payload: { handle: alice.user.handle }, headers: {} })).created)
        .toBe(true)
      expect((yield* eventsOf(alice.api_key, "follower.new")).length).toBe(3)
    }))

  it.effect("an unknown handle is a 404, oneself a 422, a bad handle a 400", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      expect((yield* failure(alice.client.social.follow({ payload: { handle: "no-such-user-q" }, headers: {} })))._tag)
        .toBe("NotFound")
      expect((yield* failure(alice.client.social.follow({ payload: { handle: alice.user.handle }, headers: {} })))._tag)
        .toBe("Unprocessable")
      expectError(
        yield* rawRequest("POST", "/follow", { key: alice.api_key, body: JSON.stringify({ handle: "A!" }) }),
        400,
        "invalid_request"
      )
    }))
})
