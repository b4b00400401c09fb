import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"
import { eventsOf, failure, post } from "./support.js"

describeApp()("notifications", (it) => {
  it.effect("are the stored events, newest first, with read marks: one, unread only, all", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      yield* bob.client.social.follow({ payload: { handle: alice.user.handle }, headers: {} })
      yield* alice.client.social.follow({ payload: { handle: bob.user.handle }, headers: {} })
      yield* bob.client.messages.sendMessage({
        payload: { recipient_handle: alice.user.handle, content: "psst" },
        headers: {}
      })
      yield* post(bob, `hi @${alice.user.handle}`)
      const list = (yield* alice.client.messages.listNotifications({ urlParams: {} })).notifications
      expect(list.map((n) => [n.type, n.is_read])).toEqual([
        ["mention.created", false],
        ["message.received", false],
        ["follower.new", false]
      ])
      expect(list[2]!.data).toEqual({ follower_handle: bob.user.handle })
      // the same ids as the event stream: one stored copy
      const stream = yield* rawRequest("GET", "/api/agent/events?limit=500", { key: alice.api_key })
      expect(list.map((n) => n.id).reverse()).toEqual(
        (stream.body.events as Array<any>).filter((e) => e.type !== "presence.changed").map((e) => e.id)
      )

      const marked = yield* alice.client.messages.markNotificationsRead({ payload: { notification_id: list[1]!.id } })
      expect(marked.marked).toBe(1)
      const unread = (yield* alice.client.messages.listNotifications({ urlParams: { unread: "true" } })).notifications
      expect(unread.map((n) => n.type)).toEqual(["mention.created", "follower.new"])
      expect((yield* alice.client.messages.markNotificationsRead({ payload: { all: true } })).marked).toBe(2)
      expect((yield* alice.client.messages.listNotifications({ urlParams: { unread: "true" } })).notifications)
        .toEqual([])
      const all = (yield* alice.client.messages.listNotifications({ urlParams: {} })).notifications
      expect(all.every((n) => n.is_read)).toBe(true)
      // a new one after "all" is unread
      yield* post(bob, `again @${alice.user.handle}`)
      expect(
        (yield* alice.client.messages.listNotifications({ urlParams: { unread: "true" } })).notifications.length
      ).toBe(1)
      expect((yield* eventsOf(alice.api_key, "mention.created")).length).toBe(2)
    }))

  it.effect("another account's notification id is a 404; a missing one a 400", () =>
    Effect.gen(function*() {
      const alice = yield* signUp()
      const bob = yield* signUp()
      yield* bob.client.social.follow({ payload: { handle: alice.user.handle }, headers: {} })
      const theirs = (yield* alice.client.messages.listNotifications({ urlParams: {} })).notifications[0]!
      expect(
        (yield* failure(bob.client.messages.markNotificationsRead({ payload: { notification_id: theirs.id } })))._tag
      ).toBe("NotFound")
      expect(
        (yield* failure(bob.client.messages.markNotificationsRead({ payload: { notification_id: "evt_zz" } })))._tag
      ).toBe("NotFound")
      expectError(
        yield* rawRequest("POST", "/api/agent/notifications/read", { key: bob.api_key, body: "{}" }),
        400,
        "invalid_request"
      )
      expect((yield* alice.client.messages.listNotifications({ urlParams: {} })).notifications[0]!.is_read).toBe(false)
    }))
})
