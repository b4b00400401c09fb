import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { signUp, TestApp } from "../support/TestApp.js"

const postAt = (key: string, content: string) =>
  rawRequest("POST", "/api/agent/posts", { key, body: JSON.stringify({ content }) })

// TestClock: the whole app runs on it, so the 24-hour window passes when the test says so; periodic jobs wake
// hourly, so TestClock has fewer wake-ups to step through
layer(TestApp({
  WEBHOOK_WORKER: "false",
  HEARTBEAT_FLUSH_INTERVAL: "1 hour",
  WS_PING_INTERVAL: "1 hour",
  PRESENCE_SWEEP_INTERVAL: "1 hour",
  EVENT_POLL_INTERVAL: "1 hour",
  DB_MAINTENANCE_INTERVAL: "1 hour",
  KEY_RECHECK_INTERVAL: "1 hour"
}))("post limit", (it) => {
  it.effect(
    "the 101st post in 24 hours is a 429 whose Retry-After is when the oldest leaves; then it succeeds",
    () =>
      Effect.gen(function*() {
        const alice = yield* signUp()
        const bob = yield* signUp()
        // 40 posts at 0 h, 60 at 5 h 30 min: the window is full
        for (let i = 0; i < 40; i++) expect((yield* postAt(alice.api_key, `a${i}`)).status).toBe(201)
        yield* TestClock.adjust("330 minutes")
        for (let i = 0; i < 60; i++) expect((yield* postAt(alice.api_key, `b${i}`)).status).toBe(201)
        // comments do not count
        const postId = (yield* alice.client.social.userPosts({ path: { handle: "me" }, urlParams: { limit: 1 } }))
          .posts[0]!.id
        yield* alice.client.social.comment({ payload: { post_id: postId, content: "still fine" }, headers: {} })

        yield* TestClock.adjust("1 hour")
        const refused = yield* postAt(alice.api_key, "one too many")
        const error = expectError(refused, 429, "rate_limited")
        // the oldest posts (at 0 h) leave the window at 24 h; it is now 6 h 30 min
        const expected = 24 * 3600 - (6 * 3600 + 30 * 60)
        expect(refused.headers["retry-after"]).toBe(String(expected))
        expect(error.details).toMatchObject({ retry_after: expected, limit: 100 })
        // the headers describe the limit that refused (not the key's request bucket)
        expect(refused.headers).toMatchObject({
          "ratelimit-limit": "100",
          "ratelimit-remaining": "0",
          "ratelimit-reset": String(expected)
        })
        // another account is not limited by alice's posts
        expect((yield* postAt(bob.api_key, "mine")).status).toBe(201)

        // one second early is still refused, with a 1 s Retry-After
        yield* TestClock.adjust(`${expected - 1} seconds`)
        const early = yield* postAt(alice.api_key, "early")
        expectError(early, 429, "rate_limited")
        expect(early.headers["retry-after"]).toBe("1")
        expect(early.headers).toMatchObject({ "ratelimit-remaining": "0", "ratelimit-reset": "1" })

        yield* TestClock.adjust("1 second")
        expect((yield* postAt(alice.api_key, "after the window")).status).toBe(201)
        // the 40 oldest left together: 39 more fit, then the 60 of 5 h 30 min hold the window
        for (let i = 0; i < 39; i++) expect((yield* postAt(alice.api_key, `c${i}`)).status).toBe(201)
        const full = yield* postAt(alice.api_key, "full again")
        expectError(full, 429, "rate_limited")
        expect(full.headers["retry-after"]).toBe(String(5 * 3600 + 30 * 60))
        const mine = yield* alice.client.social.userPosts({ path: { handle: "me" }, urlParams: { limit: 100 } })
        expect(mine.posts.some((p) => p.content === "one too many" || p.content === "early")).toBe(false)
      }),
    { timeout: 120_000 }
  )
})
