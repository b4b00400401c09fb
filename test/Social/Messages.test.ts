import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Messages } from "../../src/Messages.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { createAgent, signUp, TestApp } from "../support/TestApp.js"
import { eventsOf, failure, humanWithAgent, newProject } from "./support.js"

const send = (
  from: { readonly client: Effect.Effect.Success<ReturnType<typeof signUp>>["client"] },
  handle: string,
  content: string
) =>
  Effect.map(
    from.client.messages.sendMessage({ payload: { recipient_handle: handle, content }, headers: {} }),
    (r) => r.message
  )

// the app, plus a Messages service over the same database and outbox, to call it as another feature would
layer(Layer.provideMerge(Messages.Default, TestApp()), { excludeTestServices: true })("direct messages", (it) => {
  it.effect("to an account that follows the sender: delivered at once, message.received, listed, read marks", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      yield* bob.client.social.follow({ payload: { handle: alice.user.handle }, headers: {} })
      const m = yield* send(alice, bob.user.handle.toUpperCase(), "hi bob")
      expect(m).toMatchObject({ recipient_handle: bob.user.handle, content: "hi bob", state: "delivered" })
      const m2 = yield* send(alice, bob.user.handle, "again")
      expect(yield* eventsOf(bob.api_key, "message.received")).toEqual([
        { message_id: m.id, sender_handle: alice.user.handle, content: "hi bob" },
        { message_id: m2.id, sender_handle: alice.user.handle, content: "again" }
      ])
      const list = yield* bob.client.messages.listMessages({ urlParams: {} })
      expect(list.messages.map((x) => [x.sender_handle, x.content, x.read_at])).toEqual([
        [alice.user.handle, "again", null],
        [alice.user.handle, "hi bob", null]
      ])
      expect(Object.keys(list.messages[0]!).sort()).toEqual(["content", "created_at", "id", "read_at", "sender_handle"])
      expect((yield* bob.client.messages.markMessagesRead({ payload: { message_id: m.id } })).marked).toBe(1)
      expect((yield* bob.client.messages.markMessagesRead({ payload: { message_id: m.id } })).marked).toBe(0)
      const unread = yield* bob.client.messages.listMessages({ urlParams: { unread: "true" } })
      expect(unread.messages.map((x) => x.id)).toEqual([m2.id])
      expect((yield* bob.client.messages.markMessagesRead({ payload: { all: true } })).marked).toBe(1)
      expect((yield* bob.client.messages.listMessages({ urlParams: { unread: "true" } })).messages).toEqual([])
      // the sender's copy is not in its inbox, and it cannot mark bob's messages
      expect((yield* alice.client.messages.listMessages({ urlParams: {} })).messages).toEqual([])
      expect((yield* failure(alice.client.messages.markMessagesRead({ payload: { message_id: m2.id } })))._tag)
        .toBe("NotFound")
      expectError(
        yield* rawRequest("POST", "/api/agent/messages/read", { key: bob.api_key, body: "{}" }),
        400,
        "invalid_request"
      )
    }))

  it.effect("connections: a shared project, one owner, a reply; an unknown recipient is a 404, oneself a 422", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const sibling = yield* createAgent(human.api_key)
      const partner = yield* signUp()
      const project = yield* newProject(partner.client)
      yield* partner.client.projects.addParticipant({
        path: { project_id: project.id },
        payload: { handle: agent.agent.handle }
      })
      expect((yield* send(agent, sibling.agent.handle, "sibling")).state).toBe("delivered")
      expect((yield* send(human, agent.agent.handle, "from owner")).state).toBe("delivered")
      expect((yield* send(agent, partner.user.handle, "project mate")).state).toBe("delivered")
      const stranger = yield* signUp()
      expect((yield* send(stranger, human.user.handle, "hello?")).state).toBe("pending_approval")
      // the stranger follows the partner, so the partner's message is delivered; the stranger's reply then is too
      // (the recipient wrote to the sender before), though the partner does not follow the stranger
      expect((yield* send(partner, stranger.user.handle, "hi stranger")).state).toBe("pending_approval")
      yield* stranger.client.social.follow({ payload: { handle: partner.user.handle }, headers: {} })
      expect((yield* send(partner, stranger.user.handle, "hi again")).state).toBe("delivered")
      expect((yield* send(stranger, partner.user.handle, "a reply")).state).toBe("delivered")
      expect((yield* failure(send(agent, "no-such-user-dm", "x")))._tag).toBe("NotFound")
      const missing = yield* rawRequest("POST", "/api/agent/message", {
        key: agent.api_key,
        body: JSON.stringify({ recipient_handle: "no-such-user-dm", content: "x" })
      })
      expectError(missing, 404, "not_found")
      expect((yield* failure(send(agent, agent.agent.handle, "me")))._tag).toBe("Unprocessable")
    }))

  it.effect("a DM to a stranger waits for approval, is listed to the owner, arrives on approval; the thread opens", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const stranger = yield* signUp()
      const first = yield* send(stranger, agent.agent.handle, "may I?")
      const second = yield* send(stranger, agent.agent.handle, "please")
      expect([first.state, second.state]).toEqual(["pending_approval", "pending_approval"])
      expect((yield* agent.client.messages.listMessages({ urlParams: {} })).messages).toEqual([])
      expect(yield* eventsOf(agent.api_key, "message.received")).toEqual([])
      // agents do not decide requests; other humans do not see them
      expect((yield* failure(agent.client.messages.listMessageRequests()))._tag).toBe("Forbidden")
      const other = yield* signUp()
      expect((yield* other.client.messages.listMessageRequests()).requests).toEqual([])
      expect(
        (yield* failure(other.client.messages.approveMessageRequest({ path: { request_id: first.id } })))._tag
      ).toBe("NotFound")
      const requests = (yield* human.client.messages.listMessageRequests()).requests
      expect(requests.map((r) => [r.id, r.sender_handle, r.recipient_handle, r.content])).toEqual([
        [first.id, stranger.user.handle, agent.agent.handle, "may I?"],
        [second.id, stranger.user.handle, agent.agent.handle, "please"]
      ])
      const approved = yield* human.client.messages.approveMessageRequest({ path: { request_id: first.id } })
      expect(approved).toMatchObject({ state: "approved", messages: 2 })
      expect((yield* eventsOf(agent.api_key, "message.received")).map((d) => d.content)).toEqual(["may I?", "please"])
      expect((yield* agent.client.messages.listMessages({ urlParams: {} })).messages.map((m) => m.content))
        .toEqual(["please", "may I?"])
      expect((yield* human.client.messages.listMessageRequests()).requests).toEqual([])
      expect((yield* send(stranger, agent.agent.handle, "thanks")).state).toBe("delivered")
      // approving again: the request is gone
      expect(
        (yield* failure(human.client.messages.approveMessageRequest({ path: { request_id: first.id } })))._tag
      ).toBe("NotFound")
    }))

  it.effect("declining drops the waiting messages; nothing is delivered and the thread stays closed", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const stranger = yield* signUp()
      const m = yield* send(stranger, human.user.handle, "spam")
      const declined = yield* human.client.messages.declineMessageRequest({ path: { request_id: m.id } })
      expect(declined).toMatchObject({ state: "declined", messages: 1 })
      expect((yield* human.client.messages.listMessageRequests()).requests).toEqual([])
      expect((yield* human.client.messages.listMessages({ urlParams: {} })).messages).toEqual([])
      expect(yield* eventsOf(human.api_key, "message.received")).toEqual([])
      expect((yield* send(stranger, human.user.handle, "again")).state).toBe("pending_approval")
    }))

  it.effect("Messages.send inside another feature's transaction: commits with it, or rolls back with it", () =>
    Effect.gen(function*() {
      const messages = yield* Messages
      const sql = yield* SqlClient.SqlClient
      const { agent, human } = yield* humanWithAgent
      const failed = yield* Effect.flip(sql.withTransaction(Effect.gen(function*() {
        yield* messages.send({ from: agent.agent.id, to: human.user.id, content: "rolled back" })
        return yield* Effect.fail("the caller's own failure" as const)
      })))
      expect(failed).toBe("the caller's own failure")
      const sent = yield* sql.withTransaction(
        messages.send({ from: agent.agent.id, to: human.user.id, content: "wave done" })
      )
      expect(sent.state).toBe("delivered")
      const inbox = yield* human.client.messages.listMessages({ urlParams: {} })
      expect(inbox.messages.map((m) => [m.id, m.content])).toEqual([[sent.id, "wave done"]])
      expect((yield* eventsOf(human.api_key, "message.received")).map((d) => d.content)).toEqual(["wave done"])
    }))
})
