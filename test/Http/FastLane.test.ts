import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent } from "../Projects/support.js"
import { expectError, laneShape, rawRequest, withoutClock } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"

// The fast lanes (src/Http/FastLane.ts) take exactly `POST /api/agent/heartbeat` and `GET /api/agent/me`; the same
// call with a query string goes down the general path (router, HttpApi, middleware), so the two can be compared on
// one server: the same status, the same headers, the same body apart from the clock.
const shape = laneShape

describeApp({ RATE_LIMIT_PER_MINUTE: "6" })("fast lanes answer as the general path does", (it) => {
  it.effect("heartbeat and /me: same status, headers and body down either path; limits and keys too", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const key = agent.api_key
      for (const [method, path] of [["POST", "/api/agent/heartbeat"], ["GET", "/api/agent/me"]] as const) {
        const lane = yield* rawRequest(method, path, { key })
        const general = yield* rawRequest(method, `${path}?general`, { key })
        expect(lane.status).toBe(200)
        expect(shape(lane)).toEqual(shape(general))
        expect(withoutClock(lane.body)).toEqual(withoutClock(general.body))
        // the call was counted once by either path: the bucket of 6 went down by one each time
        expect(Number(general.headers["ratelimit-remaining"])).toBe(Number(lane.headers["ratelimit-remaining"]) - 1)
      }
      // the cases a lane leaves to the general path keep the general path's answers
      expectError(yield* rawRequest("GET", "/api/agent/me"), 401, "unauthorized")
      expectError(yield* rawRequest("POST", "/api/agent/heartbeat", { key: "sk_nope" }), 401, "unauthorized")
      expectError(
        yield* rawRequest("POST", "/api/agent/heartbeat", { key, body: "{\"beat\":1}" }),
        400,
        "invalid_request"
      )
      // past the limit (6 a minute, 4 taken above, one here): a lane's 429 is the general path's
      yield* rawRequest("GET", "/api/agent/me", { key })
      const limited = yield* rawRequest("GET", "/api/agent/me", { key })
      const limitedGeneral = yield* rawRequest("GET", "/api/agent/me?general", { key })
      expectError(limited, 429, "rate_limited")
      expect(shape(limited)).toEqual(shape(limitedGeneral))
      expect(limited.headers["retry-after"]).toBeDefined()
    }))
})
