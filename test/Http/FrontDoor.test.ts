import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as FrontDoor from "../../src/Http/FrontDoor.js"
import { WriteAdmission } from "../../src/Http/WriteAdmission.js"
import { humanWithAgent } from "../Projects/support.js"
import { expectError, laneShape, rawRequest, type RawResponse, withoutClock } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"

// The heartbeat's front-door lane (src/Http/FrontDoor.ts) answers on Node's response before Effect's server sees the
// request; `?general` sends the same call down the router, so the two can be compared on one server. The lane is
// wrapped to count what it answered itself, so each case says which path took it.
const shape = laneShape

const PATH = "/api/agent/heartbeat"

/**
 * Counts the requests a front-door lane answered itself: taken and not handed on with `next` (a lane that waits for
 * a body takes every request it reads).
 */
const countFrontDoorOf = (path: string) =>
  Effect.map(FrontDoor.FrontDoor, (door) => {
    const lane = door.lanes.get(path)
    if (lane === undefined) throw new Error(`no front-door lane for ${path}`)
    const counted = { answered: 0 }
    door.lanes.set(path, {
      ...lane,
      answer: (req, res, next) => {
        let handedOn = false
        const taken = lane.answer(req, res, () => {
          handedOn = true
          counted.answered--
          next()
        })
        if (taken && !handedOn) counted.answered++
        return taken
      }
    })
    return counted
  })

/** Counts the requests the heartbeat's front-door lane answered itself. */
const countFrontDoor = countFrontDoorOf(PATH)

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
      // the new key is known, and keeps the agent's spent bucket (limits are per account)
      expectError(yield* rawRequest("POST", PATH, { key: rotated.api_key }), 429, "rate_limited")
    }))
})

const ME = "/api/agent/me"

describeApp({ RATE_LIMIT_PER_MINUTE: "8" })("/me's front door", (it) => {
  it.effect("answers a cached key and profile as the general path does, counted once; leaves the rest to it", () =>
    Effect.gen(function*() {
      const counted = yield* countFrontDoorOf(ME)
      const { human, agent } = yield* humanWithAgent
      const key = agent.api_key
      // the first call reads the key and the profile into their caches (the general path); the next is the door's
      const first = yield* rawRequest("GET", ME, { key })
      expect(first.status).toBe(200)
      const before = counted.answered
      const lane = yield* rawRequest("GET", ME, { key })
      expect(counted.answered).toBe(before + 1)
      const general = yield* rawRequest("GET", `${ME}?general`, { key })
      expect(lane.status).toBe(200)
      expect(shape(lane)).toEqual(shape(general))
      expect(withoutClock(lane.body)).toEqual(withoutClock(general.body))
      expect(lane.body.user).toMatchObject({ id: agent.agent.id, handle: agent.agent.handle, svc_gems: 0 })
      // counted once by either path: the bucket of 8 went down by one each time
      expect(Number(general.headers["ratelimit-remaining"])).toBe(Number(lane.headers["ratelimit-remaining"]) - 1)
      expect((yield* rawRequest("GET", ME, { headers: { "x-api-key": key } })).status).toBe(200)
      expect(counted.answered).toBe(before + 2)

      // a write on this node drops the cached row: the next read is the general path's, with the new name, then
      // the door serves that
      const renamed = yield* rawRequest("PATCH", "/api/agent/profile", {
        key,
        body: JSON.stringify({ display_name: "Renamed at the door" })
      })
      expect(renamed.status).toBe(200)
      const afterWrite = counted.answered
      const reread = yield* rawRequest("GET", ME, { key })
      expect(reread.body.user.display_name).toBe("Renamed at the door")
      expect(counted.answered).toBe(afterWrite)
      const again = yield* rawRequest("GET", ME, { key })
      expect(again.body.user.display_name).toBe("Renamed at the door")
      expect(counted.answered).toBe(afterWrite + 1)

      // what the door leaves to the general path keeps the general path's answers
      const left = counted.answered
      expectError(yield* rawRequest("GET", ME), 401, "unauthorized")
      expectError(yield* rawRequest("GET", ME, { key: "sk_nope" }), 401, "unauthorized")
      expect(counted.answered).toBe(left)

      // past the limit (8 a minute): the general path's 429, with the same headers
      let limited: RawResponse | undefined
      for (let i = 0; i < 10 && limited === undefined; i++) {
        const r = yield* rawRequest("GET", ME, { key })
        if (r.status === 429) limited = r
      }
      expect(limited).toBeDefined()
      expectError(limited!, 429, "rate_limited")
      expect(limited!.headers["retry-after"]).toBeDefined()
      const limitedGeneral = yield* rawRequest("GET", `${ME}?general`, { key })
      expect(shape(limited!)).toEqual(shape(limitedGeneral))

      // a rotated key is refused at once, though it and its profile were cached: the door does not serve it
      expect((yield* rawRequest("GET", ME, { key: human.api_key })).status).toBe(200)
      const rotated = yield* human.client.accounts.rotateAgentKey({ path: { handle: agent.agent.handle } })
      const refused = counted.answered
      expectError(yield* rawRequest("GET", ME, { key }), 401, "unauthorized")
      expect(counted.answered).toBe(refused)
      // the new key is known, and keeps the agent's spent bucket (limits are per account)
      expectError(yield* rawRequest("GET", ME, { key: rotated.api_key }), 429, "rate_limited")
    }))
})

const MCP = "/mcp"
const mcpHeaders = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }
const whoami = (id: number | string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "whoami", arguments: {} } })

describeApp({ RATE_LIMIT_PER_MINUTE: "10" })("MCP's front door", (it) => {
  it.effect("answers a cached key's tool call as the general path does, counted once; hands the rest on", () =>
    Effect.gen(function*() {
      const counted = yield* countFrontDoorOf(MCP)
      const { agent } = yield* humanWithAgent
      const key = agent.api_key
      // the first call reads the key into the cache: handed on (the fast lane answers it)
      const first = yield* rawRequest("POST", MCP, { key, body: whoami(1), headers: mcpHeaders })
      expect(first.status).toBe(200)
      expect(counted.answered).toBe(0)
      const lane = yield* rawRequest("POST", MCP, { key, body: whoami(2), headers: mcpHeaders })
      expect(counted.answered).toBe(1)
      const general = yield* rawRequest("POST", `${MCP}?general`, { key, body: whoami(2), headers: mcpHeaders })
      expect(lane.status).toBe(200)
      expect(shape(lane)).toEqual(shape(general))
      expect(withoutClock(lane.body, ["text"])).toEqual(withoutClock(general.body, ["text"]))
      expect(lane.body).toMatchObject({ id: 2, result: { isError: false } })
      expect(lane.body.result.structuredContent.user).toMatchObject({ id: agent.agent.id })
      expect(Number(general.headers["ratelimit-remaining"])).toBe(Number(lane.headers["ratelimit-remaining"]) - 1)
      // the text content is the structured content as JSON
      expect(JSON.parse(lane.body.result.content[0].text)).toEqual(lane.body.result.structuredContent)
      // a tool not answered from memory: its registered handler, run by the door
      const balance = JSON.stringify({
        jsonrpc: "2.0",
        id: "b",
        method: "tools/call",
        params: { name: "gems_balance" }
      })
      const byHandler = yield* rawRequest("POST", MCP, { key, body: balance, headers: mcpHeaders })
      expect(counted.answered).toBe(2)
      const balanceGeneral = yield* rawRequest("POST", `${MCP}?general`, { key, body: balance, headers: mcpHeaders })
      expect(shape(byHandler)).toEqual(shape(balanceGeneral))
      expect(withoutClock(byHandler.body, ["text"])).toEqual(withoutClock(balanceGeneral.body, ["text"]))
      expect(byHandler.body).toMatchObject({ id: "b", result: { isError: false } })

      // read by the door and handed on, with the body kept: the general path's answers
      const left = counted.answered
      expectError(yield* rawRequest("POST", MCP, { body: whoami(3), headers: mcpHeaders }), 401, "unauthorized")
      expectError(
        yield* rawRequest("POST", MCP, { key: "sk_nope", body: whoami(3), headers: mcpHeaders }),
        401,
        "unauthorized"
      )
      expectError(
        yield* rawRequest("POST", MCP, {
          key,
          body: whoami(3).replace("{}", "{\"x\":\"a\\u0000b\"}"),
          headers: mcpHeaders
        }),
        400,
        "invalid_request"
      )
      const batch = yield* rawRequest("POST", MCP, { key, body: `[${whoami(4)}]`, headers: mcpHeaders })
      expect(batch.status).toBe(200)
      expect(batch.body[0]).toMatchObject({ id: 4, result: { isError: false } })
      expect(counted.answered).toBe(left)

      // past the limit: the general path's 429, with the same headers
      let limited: RawResponse | undefined
      for (let i = 0; i < 10 && limited === undefined; i++) {
        const r = yield* rawRequest("POST", MCP, { key, body: whoami(5), headers: mcpHeaders })
        if (r.status === 429) limited = r
      }
      expect(limited).toBeDefined()
      expectError(limited!, 429, "rate_limited")
      const limitedGeneral = yield* rawRequest("POST", `${MCP}?general`, { key, body: whoami(5), headers: mcpHeaders })
      expect(shape(limited!)).toEqual(shape(limitedGeneral))
    }))
})

// With write admission on, a gated write waits its turn in the queue: MCP's door lane takes a free slot when no one
// waits (released as its response closes), and otherwise leaves the call to the general path, which queues it; the
// reads' and the heartbeat's lanes are not gated.
describeApp({ WRITE_CONCURRENCY: "1" })("the front door with write admission on", (it) => {
  it.effect("answers MCP at the door in a free slot, and leaves it to the queue when the slot is taken", () =>
    Effect.gen(function*() {
      const door = yield* FrontDoor.FrontDoor
      expect(door.lanes.has(MCP)).toBe(true)
      expect(door.lanes.has(ME)).toBe(true)
      expect(door.lanes.has(PATH)).toBe(true)
      const queue = (yield* WriteAdmission).queue!
      const { agent } = yield* humanWithAgent
      // the first call may be handed on (its key not yet in memory): the door's slot is given back, the general
      // path takes one of its own; the second is the door's alone
      const first = yield* rawRequest("POST", MCP, { key: agent.api_key, body: whoami(0), headers: mcpHeaders })
      expect(first.body).toMatchObject({ id: 0, result: { isError: false } })
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      const before = queue.stats()
      const call = yield* rawRequest("POST", MCP, { key: agent.api_key, body: whoami(1), headers: mcpHeaders })
      expect(call.body).toMatchObject({ id: 1, result: { isError: false } })
      // one slot taken and given back by the call
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      expect(queue.stats()).toMatchObject({ inFlight: 0, queued: 0, admitted: before.admitted + 1 })
      // the only slot held elsewhere: the call waits in the queue and is answered once the slot is given back
      expect(queue.tryRun()).toBe(true)
      const waiting = yield* Effect.fork(
        rawRequest("POST", MCP, { key: agent.api_key, body: whoami(2), headers: mcpHeaders })
      )
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
      expect(queue.stats()).toMatchObject({ inFlight: 1, queued: 1 })
      queue.release(Date.now())
      const second = yield* waiting
      expect(second.body).toMatchObject({ id: 2, result: { isError: false } })
    }))
})
