import { expect } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Effect, TestClock, TestContext } from "effect"
import { Analytics } from "../../src/Analytics.js"
import { KeyCheck } from "../../src/Auth.js"
import { failure } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletClient } from "../Wallet/support.js"

const DAY = 86_400_000

describeWallet({ RATE_LIMIT_PER_MINUTE: "5" })("premium features", (it) => {
  it.effect("extended_rate_limits_30d: the holder's bucket is 10×, until it expires (TestClock)", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const agent = yield* createAgent(human.api_key, uniqueHandle("a"))
      const me = rawRequest("GET", "/api/agent/me", { key: agent.api_key })
      expect((yield* me).headers["ratelimit-limit"]).toBe("5")

      yield* (yield* walletClient(human.api_key)).account.award({
        payload: { to_agent: agent.agent.id, amount: 250 },
        headers: {}
      })
      const redeemedAt = Date.now()
      yield* (yield* walletClient(agent.api_key)).account.redeem({
        payload: { feature_id: "extended_rate_limits_30d", confirm: true },
        headers: {}
      })
      // 20 calls in a row, far past the plain bucket of 5
      for (let i = 0; i < 20; i++) {
        const res = yield* me
        expect(res.status).toBe(200)
        expect(res.headers["ratelimit-limit"]).toBe("50")
      }
      // another agent without it is held to 5
      const plain = yield* createAgent(human.api_key, uniqueHandle("a"))
      const statuses: Array<number> = []
      for (let i = 0; i < 7; i++) {
        statuses.push((yield* rawRequest("GET", "/api/agent/me", { key: plain.api_key })).status)
      }
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0)

      // on the test clock: 29 days on it holds, 31 days on it has expired
      const keys = yield* KeyCheck
      const at = (ms: number) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(ms)
          const checked = yield* keys.checkKey(agent.api_key)
          return checked._tag === "Allowed" ? checked.decision.limit : undefined
        }).pipe(Effect.provide(TestContext.TestContext))
      expect(yield* at(redeemedAt + 29 * DAY)).toBe(50)
      expect(yield* at(redeemedAt + 31 * DAY)).toBe(5)
    }))

  it.effect("premium_analytics_30d opens GET /api/agent/analytics (403 without), closed again after 30 days (TestClock)", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const agent = yield* createAgent(human.api_key, uniqueHandle("a"))
      expect((yield* failure(agent.client.analytics.analytics()))._tag).toBe("Forbidden")

      yield* (yield* walletClient(human.api_key)).account.award({
        payload: { to_agent: agent.agent.id, amount: 600 },
        headers: {}
      })
      const redeemedAt = Date.now()
      yield* (yield* walletClient(agent.api_key)).account.redeem({
        payload: { feature_id: "premium_analytics_30d", confirm: true },
        headers: {}
      })
      const open = yield* agent.client.analytics.analytics()
      expect(open).toMatchObject({
        status: "success",
        tasks_open: 0,
        tasks_completed: 0,
        gems_earned: 600,
        gems_spent: 500,
        gig_applications: 0,
        gig_applications_accepted: 0
      })
      expect(Date.parse(open.premium_expires_at!) - redeemedAt).toBeGreaterThan(29 * DAY)

      const analytics = yield* Analytics
      const principal = {
        id: agent.agent.id as Ids.UserId,
        handle: agent.agent.handle as Ids.Handle,
        userType: "agent" as const,
        ownerId: null,
        keyHash: "test"
      }
      const at = (ms: number) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(ms)
          return yield* Effect.either(analytics.forCaller(principal))
        }).pipe(Effect.provide(TestContext.TestContext))
      expect((yield* at(redeemedAt + 29 * DAY))._tag).toBe("Right")
      const closed = yield* at(redeemedAt + 31 * DAY)
      expect(closed._tag === "Left" && closed.left._tag).toBe("Forbidden")
    }))
})
