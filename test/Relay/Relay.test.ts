import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"
import { agentWithRelay, pending, sendTheThree } from "./support.js"

const byType = (events: Array<any>) => Object.fromEntries(events.map((e) => [e.payload.type, e]))

/** Presence changes reach the feed whenever the announcer runs (the human and its agent come online as they call): the
 * acknowledgement tests follow the events they cause themselves. */
const caused = (events: ReadonlyArray<any>) => events.filter((e) => e.payload._meta.shoal_type !== "presence.changed")

describeApp()("the OpenClaw relay", (it) => {
  it.effect("an agent's relay credentials are issued on the first GET, the same after, and rotated by POST", () =>
    Effect.gen(function*() {
      const { agent, relayId, relayKey } = yield* agentWithRelay
      expect(relayId).toMatch(/^rl_[0-9a-f]{24}$/)
      expect(relayKey).toMatch(/^rk_[A-Za-z0-9_-]{43}$/)
      const again = yield* rawRequest("GET", "/api/agent/relay", { key: agent.api_key })
      expect(again.body).toEqual({ status: "success", relay_id: relayId, relay_api_key: relayKey, webhook_url: null })

      const rotated = yield* rawRequest("POST", "/api/agent/relay", { key: agent.api_key })
      expect(rotated.status).toBe(200)
      expect(rotated.body.relay_id).toBe(relayId)
      expect(rotated.body.relay_api_key).not.toBe(relayKey)
      // the old key stops at once, the new one reads the feed
      expectError(yield* pending(relayId, relayKey), 401, "unauthorized")
      expect((yield* pending(relayId, rotated.body.relay_api_key)).status).toBe(200)
      expect((yield* rawRequest("GET", "/api/agent/relay", { key: agent.api_key })).body.relay_api_key)
        .toBe(rotated.body.relay_api_key)
    }))

  it.effect("a human asking for relay credentials is a 403", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      expectError(yield* rawRequest("GET", "/api/agent/relay", { key: human.api_key }), 403, "forbidden")
      expectError(yield* rawRequest("POST", "/api/agent/relay", { key: human.api_key }), 403, "forbidden")
    }))

  it.effect("a relay key is refused on account routes, and an account key on relay routes", () =>
    Effect.gen(function*() {
      const { agent, relayId, relayKey } = yield* agentWithRelay
      expectError(yield* rawRequest("GET", "/api/agent/me", { key: relayKey }), 401, "unauthorized")
      expectError(yield* rawRequest("GET", "/api/agent/events", { key: relayKey }), 401, "unauthorized")
      expectError(yield* rawRequest("GET", "/api/agent/relay", { key: relayKey }), 401, "unauthorized")
      const refused = yield* pending(relayId, agent.api_key)
      expectError(refused, 401, "unauthorized")
      expect(refused.headers["www-authenticate"]).toBe("Bearer")
      expectError(yield* pending(relayId, ""), 401, "unauthorized")
      expectError(
        yield* rawRequest("GET", `/api/v1/agent/${relayId}/config`, { key: agent.api_key }),
        401,
        "unauthorized"
      )
    }))

  it.effect("a DM, a task assignment and a mention arrive on /pending in the relay's names, Shoal's fields kept", () =>
    Effect.gen(function*() {
      const { agent, human, relayId, relayKey } = yield* agentWithRelay
      const sent = yield* sendTheThree(human, agent.agent.handle)
      const res = yield* pending(relayId, relayKey)
      expect(res.status).toBe(200)
      expect(res.body.status).toBe("success")
      const got = byType(res.body.events)
      for (const e of res.body.events) {
        expect(e.id).toBe(e.payload.id)
        expect(e.payload._meta.delivery_method).toBe("poll")
        expect(typeof e.payload._meta.cursor).toBe("number")
      }
      expect(got["dm.received"].payload.data).toMatchObject({
        sender_handle: human.user.handle,
        content: "psst, the build is red",
        message_id: expect.any(String)
      })
      expect(got["dm.received"].payload._meta.shoal_type).toBe("message.received")
      expect(got["task.assigned"].payload.data).toMatchObject({
        task: { id: sent.task.id, title: "Fix the build", description: "the CI job fails on npm ci" },
        project: { id: sent.project.id, title: "Relay project" },
        // Shoal's own fields stay beside the relay's
        id: sent.task.id,
        assigned_by_handle: human.user.handle
      })
      expect(got["mention"].payload.data).toMatchObject({
        author: human.user.handle,
        author_handle: human.user.handle,
        content: `thanks @${agent.agent.handle} for the help`,
        post_id: sent.post.id
      })
      expect(got["mention"].payload._meta.shoal_type).toBe("mention.created")
      // the same events, ids and order as Shoal's own stream after the relay was issued
      const stream = yield* rawRequest("GET", "/api/agent/events?limit=500", { key: agent.api_key })
      const streamIds = (stream.body.events as Array<any>).map((e) => e.id)
      const relayIds = (res.body.events as Array<any>).map((e) => e.id)
      // (a presence change may land after the poll: the stream holds the relay's events as one run, in order)
      const at = streamIds.indexOf(relayIds[0])
      expect(streamIds.slice(at, at + relayIds.length)).toEqual(relayIds)
      // without ack the position stays: the next poll starts with the same events
      const again = (yield* pending(relayId, relayKey)).body.events.map((e: any) => e.id)
      expect(again.slice(0, relayIds.length)).toEqual(relayIds)
    }))

  it.effect("a task comment is task.comment with task, author and content", () =>
    Effect.gen(function*() {
      const { agent, human, relayId, relayKey } = yield* agentWithRelay
      const sent = yield* sendTheThree(human, agent.agent.handle)
      const commented = yield* rawRequest("POST", `/api/agent/tasks/${sent.task.id}/comment`, {
        key: human.api_key,
        body: JSON.stringify({ content: "any news?" })
      })
      expect(commented.status).toBe(201)
      const got = byType((yield* pending(relayId, relayKey)).body.events)
      expect(got["task.comment"].payload.data).toMatchObject({
        task: { id: sent.task.id, title: "Fix the build" },
        author: human.user.handle,
        content: "any news?"
      })
    }))

  it.effect("?ack=true moves the position past what was returned: those events do not come again", () =>
    Effect.gen(function*() {
      const { agent, human, relayId, relayKey } = yield* agentWithRelay
      yield* sendTheThree(human, agent.agent.handle)
      const first = yield* pending(relayId, relayKey, true)
      expect(caused(first.body.events).length).toBeGreaterThanOrEqual(3)
      expect(caused((yield* pending(relayId, relayKey, true)).body.events)).toEqual([])
      yield* human.client.messages.sendMessage({
        payload: { recipient_handle: agent.agent.handle, content: "one more" },
        headers: {}
      })
      const next = caused((yield* pending(relayId, relayKey, true)).body.events)
      expect(next.map((e: any) => [e.payload.type, e.payload.data.content])).toEqual([["dm.received", "one more"]])
    }))

  it.effect("POST /api/relay/:id/ack moves the position past that event, never back; an unknown id is a 404", () =>
    Effect.gen(function*() {
      const { agent, human, relayId, relayKey } = yield* agentWithRelay
      yield* sendTheThree(human, agent.agent.handle)
      const events: Array<any> = caused((yield* pending(relayId, relayKey)).body.events)
      const ack = (eventId: string) =>
        rawRequest("POST", `/api/relay/${relayId}/ack`, { key: relayKey, body: JSON.stringify({ event_id: eventId }) })
      const mid = events[1]!
      const acked = yield* ack(mid.id)
      expect(acked.status).toBe(200)
      expect(acked.body).toEqual({ status: "success" })
      expect(caused((yield* pending(relayId, relayKey)).body.events).map((e: any) => e.id)).toEqual(
        events.slice(2).map((e) => e.id)
      )
      // an older event does not move it back
      yield* ack(events[0]!.id)
      expect(caused((yield* pending(relayId, relayKey)).body.events).length).toBe(events.length - 2)
      yield* ack(events[events.length - 1]!.id)
      expect(caused((yield* pending(relayId, relayKey)).body.events)).toEqual([])
      expectError(yield* ack("evt_00000000000000010000000000000000"), 404, "not_found")
      expectError(yield* ack("nope"), 404, "not_found")
    }))

  it.effect("another agent's relay id is a 404 on every relay route; results are recorded", () =>
    Effect.gen(function*() {
      const a = yield* agentWithRelay
      const b = yield* agentWithRelay
      expectError(yield* pending(b.relayId, a.relayKey), 404, "not_found")
      expectError(yield* pending("rl_000000000000000000000000", a.relayKey), 404, "not_found")
      expectError(
        yield* rawRequest("POST", `/api/relay/${b.relayId}/ack`, {
          key: a.relayKey,
          body: JSON.stringify({ event_id: "evt_0" })
        }),
        404,
        "not_found"
      )
      expectError(yield* rawRequest("GET", `/api/v1/agent/${b.relayId}/config`, { key: a.relayKey }), 404, "not_found")

      yield* sendTheThree(a.human, a.agent.agent.handle)
      const event = (yield* pending(a.relayId, a.relayKey)).body.events[0]
      const result = (key: string, eventId: string, body: unknown) =>
        rawRequest("POST", `/api/v1/events/${eventId}/result`, { key, body: JSON.stringify(body) })
      const ok = yield* result(a.relayKey, event.id, { status: "success", executed_at: new Date().toISOString() })
      expect(ok.body).toEqual({ status: "success" })
      expect((yield* result(a.relayKey, event.id, { status: "failed", error_reason: "no model" })).status).toBe(200)
      // B's key does not reach A's events
      expectError(yield* result(b.relayKey, event.id, { status: "success" }), 404, "not_found")
      expectError(yield* result(a.relayKey, event.id, { status: "maybe" }), 400, "invalid_request")
    }))

  it.effect("config and configure: poll by default, push needs a guarded webhook_url, each change bumps the version", () =>
    Effect.gen(function*() {
      const { agent, relayId, relayKey } = yield* agentWithRelay
      const config = yield* rawRequest("GET", `/api/v1/agent/${relayId}/config`, { key: relayKey })
      expect(config.body).toEqual({
        status: "success",
        relay_id: relayId,
        config_version: 1,
        delivery_mode: "poll",
        webhook_url: null
      })
      const configure = (body: unknown) =>
        rawRequest("POST", `/api/v1/agent/${relayId}/configure`, { key: relayKey, body: JSON.stringify(body) })
      expectError(yield* configure({ delivery_mode: "push" }), 400, "invalid_request")
      // the agent-webhook guard: no loopback or metadata addresses (WEBHOOK_ALLOW_PRIVATE is off here)
      expectError(
        yield* configure({ delivery_mode: "push", webhook_url: "http://127.0.0.1:9/hook" }),
        400,
        "invalid_request"
      )
      expectError(
        yield* configure({ delivery_mode: "push", webhook_url: "http://169.254.169.254/" }),
        400,
        "invalid_request"
      )
      expectError(yield* configure({ delivery_mode: "fax" }), 400, "invalid_request")
      const pushed = yield* configure({
        delivery_mode: "push",
        webhook_url: "https://93.184.216.34/openclaw",
        webhook_secret: "s3cret"
      })
      expect(pushed.body).toEqual({
        status: "success",
        relay_id: relayId,
        config_version: 2,
        delivery_mode: "push",
        webhook_url: "https://93.184.216.34/openclaw"
      })
      expect((yield* rawRequest("GET", "/api/agent/relay", { key: agent.api_key })).body.webhook_url)
        .toBe("https://93.184.216.34/openclaw")
      const polled = yield* configure({ delivery_mode: "poll" })
      expect(polled.body).toMatchObject({ config_version: 3, delivery_mode: "poll", webhook_url: null })
    }))
})
