import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"
import { eventsOf, failure, humanWithAgent, newProject, post } from "./support.js"

describeApp()("comments and votes", (it) => {
  it.effect("comments on both paths count on the post; a post the caller cannot see is a 404", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      const p = yield* post(alice, "hi")
      const c = yield* bob.client.social.comment({ payload: { post_id: p.id, content: "one" }, headers: {} })
      expect(c.comment).toMatchObject({ post_id: p.id, author_handle: bob.user.handle, content: "one" })
      yield* bob.client.socialShort.comment({ payload: { post_id: p.id, content: "two" }, headers: {} })
      expect((yield* alice.client.social.getPost({ path: { post_id: p.id } })).post.comment_count).toBe(2)
      const secret = yield* post(alice, "mine", { visibility: "private" })
      expect(
        (yield* failure(bob.client.social.comment({ payload: { post_id: secret.id, content: "x" }, headers: {} })))
          ._tag
      ).toBe("NotFound")
      expect((yield* failure(bob.client.social.vote({ payload: { post_id: secret.id, vote: 1 }, headers: {} })))._tag)
        .toBe("NotFound")
      const missing = "00000000-0000-4000-8000-000000000000" as typeof p.id
      expect(
        (yield* failure(bob.client.social.comment({ payload: { post_id: missing, content: "x" }, headers: {} })))
          ._tag
      ).toBe("NotFound")
      expectError(
        yield* rawRequest("POST", "/comment", {
          key: bob.api_key,
          body: JSON.stringify({ post_id: p.id, content: "" })
        }),
        400,
        "invalid_request"
      )
      expect((yield* alice.client.social.getPost({ path: { post_id: secret.id } })).post.comment_count).toBe(0)
    }))

  it.effect("one vote per account: a changed vote replaces the old, the same again changes nothing; score, my_vote", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      const carol = yield* signUp()
      const p = yield* post(alice, "vote on me")
      expect(yield* bob.client.social.vote({ payload: { post_id: p.id, vote: 1 }, headers: {} })).toMatchObject({
        vote: { post_id: p.id, vote: 1 },
        score: 1,
        changed: true
      })
      expect(yield* bob.client.socialShort.vote({ payload: { post_id: p.id, vote: 1 }, headers: {} }))
        .toMatchObject({ score: 1, changed: false })
      expect((yield* carol.client.social.vote({ payload: { post_id: p.id, vote: 1 }, headers: {} })).score).toBe(2)
      expect((yield* bob.client.social.vote({ payload: { post_id: p.id, vote: -1 }, headers: {} })).score).toBe(0)
      expect((yield* bob.client.social.getPost({ path: { post_id: p.id } })).post).toMatchObject({
        score: 0,
        my_vote: -1
      })
      expect((yield* carol.client.social.getPost({ path: { post_id: p.id } })).post.my_vote).toBe(1)
      expect((yield* alice.client.social.getPost({ path: { post_id: p.id } })).post.my_vote).toBe(0)
      for (const vote of [0, 2, "1", null]) {
        expectError(
          yield* rawRequest("POST", "/api/agent/vote", {
            key: bob.api_key,
            body: JSON.stringify({ post_id: p.id, vote })
          }),
          400,
          "invalid_request"
        )
      }
      expect((yield* alice.client.social.getPost({ path: { post_id: p.id } })).post.score).toBe(0)
    }))
})

describeApp()("mentions", (it) => {
  it.effect("@handle sends mention.created once per post, never to the author, also from comments", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      const carol = yield* signUp()
      const p = yield* post(alice, `hey @${bob.user.handle} and @${alice.user.handle}, also @${bob.user.handle}`)
      yield* carol.client.social.comment({
        payload: { post_id: p.id, content: `+1 @${bob.user.handle.toUpperCase()} @${carol.user.handle}` },
        headers: {}
      })
      yield* alice.client.social.comment({ payload: { post_id: p.id, content: `@${carol.user.handle}` }, headers: {} })
      const bobs = yield* eventsOf(bob.api_key, "mention.created")
      expect(bobs).toEqual([{ post_id: p.id, author_handle: alice.user.handle, content: p.content }])
      expect(yield* eventsOf(alice.api_key, "mention.created")).toEqual([])
      // carol mentioned herself in her comment (nothing), then alice mentioned her
      expect(yield* eventsOf(carol.api_key, "mention.created")).toEqual([
        { post_id: p.id, author_handle: alice.user.handle, content: `@${carol.user.handle}` }
      ])
    }))

  it.effect("a mention of an account that cannot see the post sends nothing", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const stranger = yield* signUp()
      const member = yield* signUp()
      const closed = yield* newProject(agent.client, { visibility: "private" })
      yield* agent.client.projects.addParticipant({
        path: { project_id: closed.id },
        payload: { handle: member.user.handle }
      })
      yield* post(agent, `@${stranger.user.handle} @${member.user.handle} look`, { project_id: closed.id })
      yield* post(agent, `private @${stranger.user.handle}`, { visibility: "private" })
      yield* post(agent, `followers only @${stranger.user.handle}`, { visibility: "followers" })
      yield* post(agent, `@no-such-account-zz hello`)
      expect(yield* eventsOf(stranger.api_key, "mention.created")).toEqual([])
      expect((yield* eventsOf(member.api_key, "mention.created")).length).toBe(1)
    }))
})
