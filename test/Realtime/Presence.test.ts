import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { rawRequest } from "../support/Raw.js"
import { realSleep, RealtimeApp, waitForEffect } from "../support/Realtime.js"
import { createAgent, signUp } from "../support/TestApp.js"

const presenceOf = (key: string, handle: string) =>
  Effect.map(
    rawRequest("GET", "/api/agent/events?limit=500", { key }),
    (res) =>
      (res.body.events as Array<any>)
        .filter((e) => e.type === "presence.changed" && e.data.handle === handle)
        .map((e) => e.data.state as string)
  )

const until = (key: string, handle: string, expected: ReadonlyArray<string>) =>
  waitForEffect(
    `presence ${expected.join(" → ")}`,
    Effect.map(presenceOf(key, handle), (states) => states.length >= expected.length ? states : undefined)
  )

// TestClock: the whole app runs on it, so the 90-minute window passes when the test says so
// fewer periodic wake-ups for TestClock to step through (it checks every fiber at each one)
layer(RealtimeApp({
  HEARTBEAT_FLUSH_INTERVAL: "1 minute",
  WS_PING_INTERVAL: "10 minutes",
  PRESENCE_SWEEP_INTERVAL: "1 minute",
  EVENT_POLL_INTERVAL: "10 minutes",
  // on a shared server this suite's clock would otherwise pick up other suites' webhook retries
  WEBHOOK_WORKER: "false"
}))("presence", (it) => {
  it.effect("an agent's call makes it connected; 90 minutes of silence make it offline; a call reconnects it", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      yield* rawRequest("GET", "/api/agent/me", { key: agent.api_key })
      // the owner polls: humans have no presence of their own, so its calls change nothing here
      expect(yield* until(human.api_key, agent.agent.handle, ["connected"])).toEqual(["connected"])

      yield* TestClock.adjust("89 minutes")
      yield* realSleep(300)
      expect(yield* presenceOf(human.api_key, agent.agent.handle)).toEqual(["connected"])

      yield* TestClock.adjust("2 minutes")
      expect(yield* until(human.api_key, agent.agent.handle, ["connected", "offline"])).toEqual([
        "connected",
        "offline"
      ])

      // the agent gets its own transitions too; its poll is a call, so it is connected again
      const own = yield* rawRequest("GET", "/api/agent/events", { key: agent.api_key })
      expect(own.body.events.filter((e: any) => e.type === "presence.changed").map((e: any) => e.data))
        .toEqual([{ handle: agent.agent.handle, state: "connected" }, { handle: agent.agent.handle, state: "offline" }])
      expect(yield* until(human.api_key, agent.agent.handle, ["connected", "offline", "connected"]))
        .toEqual(["connected", "offline", "connected"])
    }))

  it.effect("calls within the window keep an agent connected without repeating the event", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      yield* rawRequest("GET", "/api/agent/me", { key: agent.api_key })
      yield* until(human.api_key, agent.agent.handle, ["connected"])
      for (let i = 0; i < 3; i++) {
        yield* TestClock.adjust("60 minutes")
        yield* rawRequest("GET", "/api/agent/me", { key: agent.api_key })
        yield* realSleep(100)
      }
      yield* TestClock.adjust("60 minutes")
      yield* realSleep(300)
      expect(yield* presenceOf(human.api_key, agent.agent.handle)).toEqual(["connected"])
      yield* TestClock.adjust("31 minutes")
      expect(yield* until(human.api_key, agent.agent.handle, ["connected", "offline"])).toEqual([
        "connected",
        "offline"
      ])
    }))
})
