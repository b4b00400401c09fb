import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as FrontDoor from "../../src/Http/FrontDoor.js"
import { humanWithAgent } from "../Projects/support.js"
import { expectError, laneShape, rawRequest, type RawResponse, withoutClock } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"

// The heartbeat's front-door lane (src/Http/FrontDoor.ts) answers on Node's response before Effect's server sees the
// request; `?general` sends the same call down the router, so the two can be compared on one server. The lane is
// wrapped to count what it answered itself, so each case says which path took it.
const shape = laneShape

const PATH = "/api/agent/heartbeat"

/** Counts the requests the heartbeat's front-door lane answered itself. */
const countFrontDoor = Effect.map(FrontDoor.FrontDoor, (door) => {
  const lane = door.lanes.get(PATH)
  if (lane === undefined) throw new Error("no front-door lane for the heartbeat")
  const counted = { answered: 0 }
  door.lanes.set(PATH, {
    ...lane,
    answer: (req, res) => {
      const answered = lane.answer(req, res)
      if (answered) counted.answered++
      return answered
    }
  })
  return counted
})

describeApp({ RATE_LIMIT_PER_MINUTE: "8" })("the heartbeat's front door", (it) => {
  it.effect("answers a cached key's heartbeat as the general path does, counted once; leaves the rest to it", () =>
    Effect.gen(function*() {
      const counted = yield* countFrontDoor
      const { human, agent } = yield* humanWithAgent
      const key = agent.api_key
      // the first call reads the key into the cache (the general path); the next one is the door's
      yield* rawRequest("POST", PATH, { key })
      const before = counted.answered
      const lane = yield* rawRequest("POST", PATH, { key })
      expect(counted.answered).toBe(before + 1)
      const general = yield* rawRequest("POST", `${PATH}?general`, { key })
      expect(lane.status).toBe(200)
      expect(shape(lane)).toEqual(shape(general))
      expect(withoutClock(lane.body)).toEqual(withoutClock(general.body))
      expect(lane.body.connected).toBe(true)
      // counted once by either path: the bucket of 8 went down by one each time
      expect(Number(general.headers["ratelimit-remaining"])).toBe(Number(lane.headers["ratelimit-remaining"]) - 1)
      // the other key header, and the JSON content type with no body, are plain heartbeats too
      const viaHeader = yield* rawRequest("POST", PATH, { headers: { "x-api-key": key } })
      expect(viaHeader.status).toBe(200)
      const typed = yield* rawRequest("POST", PATH, { key, headers: { "content-type": "application/json" } })
      expect(typed.status).toBe(200)
      expect(counted.answered).toBe(before + 3)

      // what the door leaves to the general path keeps the general path's answers
      const left = counted.answered
      expectError(yield* rawRequest("POST", PATH), 401, "unauthorized")
      expectError(yield* rawRequest("POST", PATH, { key: "sk_nope" }), 401, "unauthorized")
      expectError(yield* rawRequest("POST", PATH, { key, body: "{\"beat\":1}" }), 400, "invalid_request")
      expect((yield* rawRequest("POST", PATH, { key, body: "{}" })).status).toBe(200)
      expect(counted.answered).toBe(left)

      // past the limit (8 a minute): the general path's 429, with the same headers
      let limited: RawResponse | undefined
      for (let i = 0; i < 10 && limited === undefined; i++) {
        const r = yield* rawRequest("POST", PATH, { key })
        if (r.status === 429) limited = r
      }
      expect(limited).toBeDefined()
      expectError(limited!, 429, "rate_limited")
      expect(limited!.headers["retry-after"]).toBeDefined()
      const limitedGeneral = yield* rawRequest("POST", `${PATH}?general`, { key })
      expect(shape(limited!)).toEqual(shape(limitedGeneral))

      // a rotated key is refused at once, though it was cached: the door does not serve it
      const fresh = yield* rawRequest("POST", PATH, { key: human.api_key })
      expect(fresh.status).toBe(200)
      const rotated = yield* human.client.accounts.rotateAgentKey({ path: { handle: agent.agent.handle } })
      const refused = counted.answered
      expectError(yield* rawRequest("POST", PATH, { key }), 401, "unauthorized")
      expect(counted.answered).toBe(refused)
      const next = yield* rawRequest("POST", PATH, { key: rotated.api_key })
      expect(next.status).toBe(200)
    }))
})
