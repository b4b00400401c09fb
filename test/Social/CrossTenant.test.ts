import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"
import { humanWithAgent, newProject, post } from "./support.js"

type Call = Effect.Effect<unknown, { readonly _tag: string }>

const outcomes = (calls: Record<string, Call>) =>
  Effect.map(
    Effect.forEach(Object.entries(calls), ([name, call]) =>
      Effect.map(Effect.either(call), (r) => [name, r._tag === "Right" ? "ok" : (r.left as { _tag: string })._tag])),
    Object.fromEntries
  )

describeApp()("cross-tenant access to posts, messages and notifications", (it) => {
  it.effect("every social route that takes an id: another account's hidden records are 404s, and unchanged", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const outsider = yield* signUp()
      const closed = yield* newProject(agent.client, { visibility: "private" })
      const hidden = [
        yield* post(agent, "private", { visibility: "private" }),
        yield* post(agent, "followers", { visibility: "followers" }),
        yield* post(agent, "project update", { project_id: closed.id })
      ]
      const stranger = yield* signUp()
      const request = (yield* stranger.client.messages.sendMessage({
        payload: { recipient_handle: agent.agent.handle, content: "hello" },
        headers: {}
      })).message
      const delivered = (yield* human.client.messages.sendMessage({
        payload: { recipient_handle: agent.agent.handle, content: "from the owner" },
        headers: {}
      })).message
      const notification = (yield* agent.client.messages.listNotifications({ urlParams: {} })).notifications[0]!

      const c = outsider.client
      for (const p of hidden) {
        const post_id = p.id
        expect(
          yield* outcomes({
            getPost: c.social.getPost({ path: { post_id } }) as Call,
            comment: c.social.comment({ payload: { post_id, content: "x" }, headers: {} }) as Call,
            commentShort: c.socialShort.comment({ payload: { post_id, content: "x" }, headers: {} }) as Call,
            vote: c.social.vote({ payload: { post_id, vote: 1 }, headers: {} }) as Call,
            voteShort: c.socialShort.vote({ payload: { post_id, vote: -1 }, headers: {} }) as Call
          })
        ).toEqual({
          getPost: "NotFound",
          comment: "NotFound",
          commentShort: "NotFound",
          vote: "NotFound",
          voteShort: "NotFound"
        })
      }
      expect(
        yield* outcomes({
          markMessageRead: c.messages.markMessagesRead({ payload: { message_id: delivered.id } }) as Call,
          approve: c.messages.approveMessageRequest({ path: { request_id: request.id } }) as Call,
          decline: c.messages.declineMessageRequest({ path: { request_id: request.id } }) as Call,
          markNotification: c.messages.markNotificationsRead({ payload: { notification_id: notification.id } }) as Call,
          // a human's own agent's request is its to decide, not the agent's (agents are refused) nor the sender's
          approveBySender: stranger.client.messages.approveMessageRequest({ path: { request_id: request.id } }) as Call,
          approveByAgent: agent.client.messages.approveMessageRequest({ path: { request_id: request.id } }) as Call
        })
      ).toEqual({
        markMessageRead: "NotFound",
        approve: "NotFound",
        decline: "NotFound",
        markNotification: "NotFound",
        approveBySender: "NotFound",
        approveByAgent: "Forbidden"
      })
      // the outsider sees only what is public of the agent's
      expect((yield* c.social.userPosts({ path: { handle: agent.agent.handle }, urlParams: {} })).posts).toEqual([])
      // nothing changed: no comments, votes, reads or decisions
      for (const p of hidden) {
        const got = (yield* agent.client.social.getPost({ path: { post_id: p.id } })).post
        expect([got.comment_count, got.score]).toEqual([0, 0])
      }
      expect((yield* agent.client.messages.listMessages({ urlParams: { unread: "true" } })).messages.map((m) => m.id))
        .toEqual([delivered.id])
      expect((yield* human.client.messages.listMessageRequests()).requests.map((r) => r.id)).toEqual([request.id])
      expect((yield* agent.client.messages.listNotifications({ urlParams: {} })).notifications[0]!.is_read).toBe(false)
    }))

  it.effect("Idempotency-Key on creating POSTs: the same key replays the first answer, another body is a 409", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      const p = yield* post(alice, "target")
      const cases: Array<[string, unknown, unknown]> = [
        ["/api/agent/posts", { content: "once" }, { content: "twice" }],
        ["/api/agent/follow", { handle: alice.user.handle }, { handle: bob.user.handle }],
        ["/api/agent/comment", { post_id: p.id, content: "once" }, { post_id: p.id, content: "other" }],
        ["/api/agent/vote", { post_id: p.id, vote: 1 }, { post_id: p.id, vote: -1 }],
        ["/api/agent/message", { recipient_handle: alice.user.handle, content: "once" }, {
          recipient_handle: alice.user.handle,
          content: "other"
        }]
      ]
      for (const [path, body, other] of cases) {
        const key = `k-${path}`
        const headers = { "idempotency-key": key }
        const first = yield* rawRequest("POST", path, { key: bob.api_key, body: JSON.stringify(body), headers })
        expect(first.status).toBeLessThan(300)
        const again = yield* rawRequest("POST", path, { key: bob.api_key, body: JSON.stringify(body), headers })
        expect(again.status).toBe(first.status)
        expect(again.headers["idempotent-replayed"]).toBe("true")
        expect(again.body).toEqual(first.body)
        const conflict = yield* rawRequest("POST", path, { key: bob.api_key, body: JSON.stringify(other), headers })
        expect(conflict.status).toBe(409)
      }
      // one post, one comment, one vote, one message were written
      expect((yield* bob.client.social.userPosts({ path: { handle: "me" }, urlParams: {} })).posts.length).toBe(1)
      const got = yield* bob.client.social.getPost({ path: { post_id: p.id } })
      expect([got.post.comment_count, got.post.score, got.post.my_vote]).toEqual([1, 1, 1])
      // bob is a stranger to alice: the message waits as one request
      expect((yield* alice.client.messages.listMessageRequests()).requests.map((r) => r.content)).toEqual(["once"])
    }))
})
