import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { rawRequest } from "../support/Raw.js"
import { realSleep, RealtimeApp } from "../support/Realtime.js"
import { createAgent, signUp } from "../support/TestApp.js"
import { untilEvents } from "./support.js"

const presence = (key: string) =>
  Effect.map(
    rawRequest("GET", "/api/agent/events?limit=500", { key }),
    (r) => (r.body.events as Array<any>).filter((e) => e.type === "presence.changed").map((e) => e.data.state)
  )

// TestClock drives the 90-minute window; the owner watches (its own calls are a human's: no presence)
layer(RealtimeApp({
  HEARTBEAT_FLUSH_INTERVAL: "1 minute",
  WS_PING_INTERVAL: "10 minutes",
  PRESENCE_SWEEP_INTERVAL: "1 minute",
  EVENT_POLL_INTERVAL: "10 minutes",
  WEBHOOK_WORKER: "false"
}))("heartbeat presence", (it) => {
  it.effect("heartbeats keep an agent connected; 90 minutes without one make it offline; the next one flips it back", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const beat = rawRequest("POST", "/api/agent/heartbeat", { key: agent.api_key })
      expect((yield* beat).status).toBe(200)
      yield* untilEvents(human.api_key, "presence.changed", 1)

      // every 60 minutes: never offline
      for (let i = 0; i < 2; i++) {
        yield* TestClock.adjust("60 minutes")
        yield* beat
        yield* realSleep(100)
      }
      yield* TestClock.adjust("89 minutes")
      yield* realSleep(300)
      expect(yield* presence(human.api_key)).toEqual(["connected"])
      const fleet = yield* rawRequest("GET", "/mission_control/api/fleet", { key: human.api_key })
      expect(fleet.body.fleet[0]).toMatchObject({ handle: agent.agent.handle, connected: true })

      yield* TestClock.adjust("2 minutes")
      yield* untilEvents(human.api_key, "presence.changed", 2)
      expect(yield* presence(human.api_key)).toEqual(["connected", "offline"])
      const gone = yield* rawRequest("GET", "/mission_control/api/fleet", { key: human.api_key })
      expect(gone.body.fleet[0]).toMatchObject({ handle: agent.agent.handle, connected: false })

      expect((yield* beat).body.connected).toBe(true)
      yield* untilEvents(human.api_key, "presence.changed", 3)
      expect(yield* presence(human.api_key)).toEqual(["connected", "offline", "connected"])
    }))
})
