import { expect, layer } from "@effect/vitest"
import type { Auth } from "@shoal/domain"
import { Effect, Fiber, Metric, TestClock } from "effect"
import { hashKey } from "../../src/Auth/Keys.js"
import { actorRestarts } from "../../src/Metrics/Metrics.js"
import { AgentHub } from "../../src/Realtime/AgentHub.js"
import { Supervisor } from "../../src/Supervisor.js"
import { Wallet } from "../../src/Wallet.js"
import { AccountActors } from "../../src/Wallet/AccountActors.js"
import { cycle } from "../../src/Waves/Clock.js"
import { WavesRepo } from "../../src/Waves/Repo.js"
import { rawRequest } from "../support/Raw.js"
import { emit, openSocket, realSleep, RealtimeApp, waitFor, waitForEffect } from "../support/Realtime.js"
import { createAgent, signUp } from "../support/TestApp.js"
import { agentWithTask, eventsOf, freshHour, MINUTE, settle, untilEvents } from "../Waves/support.js"

const restarts = (kind: string) =>
  Effect.map(Metric.value(actorRestarts.pipe(Metric.tagged("kind", kind))), (state) => Number(state.count))

/** Lets a dead actor's backoff pass (the app runs on TestClock) and its successor run. */
const afterBackoff = Effect.zipRight(realSleep(100), Effect.zipRight(TestClock.adjust("1 second"), realSleep(200)))

const principal = (
  id: string,
  handle: string,
  userType: "agent" | "human",
  key: string,
  ownerId: string | null = null
) => ({ id, handle, userType, ownerId, keyHash: hashKey(key) }) as unknown as Auth.Principal

// the whole app runs on TestClock, so a presence window and a Wave hour pass when the test says so
layer(RealtimeApp({
  HEARTBEAT_FLUSH_INTERVAL: "1 minute",
  WS_PING_INTERVAL: "10 minutes",
  PRESENCE_SWEEP_INTERVAL: "1 minute",
  EVENT_POLL_INTERVAL: "10 minutes",
  WEBHOOK_WORKER: "false"
}))("actors", (it) => {
  it.scoped("a defect in one agent's actor restarts it; its sockets keep their stream, other agents see nothing", () =>
    Effect.gen(function*() {
      const hub = yield* AgentHub
      const human = yield* signUp()
      const a = yield* createAgent(human.api_key)
      const b = yield* createAgent(human.api_key)
      const a1 = yield* openSocket({ key: a.api_key })
      const a2 = yield* openSocket({ key: a.api_key, via: "frame" })
      const b1 = yield* openSocket({ key: b.api_key })
      yield* Effect.all([a1.ready(), a2.ready(), b1.ready()])
      const before = yield* restarts("agent")

      for (let n = 1; n <= 3; n++) yield* emit([a.agent.id, b.agent.id], "test.n", { n })
      yield* Effect.all([a1.waitEvents("test.", 3), a2.waitEvents("test.", 3), b1.waitEvents("test.", 3)])
      yield* hub.crash(a.agent.id)
      // emitted while a's actor is dead or waiting out its backoff: they queue in its inbox
      for (let n = 4; n <= 6; n++) yield* emit([a.agent.id, b.agent.id], "test.n", { n })
      yield* b1.waitEvents("test.", 6)
      yield* afterBackoff
      yield* Effect.all([a1.waitEvents("test.", 6), a2.waitEvents("test.", 6)])
      yield* realSleep(150)

      const ns = (s: typeof a1) => s.events("test.").map((f) => f.event!.data.n)
      expect(ns(a1)).toEqual([1, 2, 3, 4, 5, 6])
      expect(ns(a2)).toEqual([1, 2, 3, 4, 5, 6])
      expect(ns(b1)).toEqual([1, 2, 3, 4, 5, 6])
      for (const s of [a1, a2, b1]) expect(s.closed).toBeUndefined()
      expect(yield* restarts("agent")).toBe(before + 1)
      expect((yield* Supervisor).stopped()).toEqual([])
      expect(hub.has(a.agent.id)).toBe(true)
    }))

  it.effect("a defect in a wallet account's actor restarts it; every movement queued behind it applies once; idle, it ends", () =>
    Effect.gen(function*() {
      const actors = yield* AccountActors
      // the services are not exposed by the app's layer (its singletons are): a Wallet over the same ledger
      const wallet = yield* Effect.provide(Wallet, Wallet.Default)
      const human = yield* signUp()
      const a = yield* createAgent(human.api_key)
      const b = yield* createAgent(human.api_key)
      const humanP = principal(human.user.id, human.user.handle, "human", human.api_key)
      const aP = principal(a.agent.id, a.agent.handle, "agent", a.api_key, human.user.id)
      yield* wallet.award(humanP, { to_agent: a.agent.id, amount: 100 })
      const before = yield* restarts("account")

      yield* actors.crash(a.agent.id)
      const transfers = yield* Effect.fork(Effect.all(
        Array.from(
          { length: 5 },
          () => actors.serialize(a.agent.id, wallet.transfer(aP, { to_agent: b.agent.id, amount: 7 }))
        ),
        { concurrency: "unbounded" }
      ))
      yield* afterBackoff
      const results = yield* Fiber.join(transfers)

      expect(new Set(results.map((r) => r.transaction_id)).size).toBe(5)
      expect((yield* wallet.balance(a.agent.id)).balance).toBe(100 - 35)
      expect((yield* wallet.balance(b.agent.id)).balance).toBe(35)
      expect(yield* restarts("account")).toBe(before + 1)
      expect((yield* Supervisor).stopped()).toEqual([])

      // unused past ACCOUNT_ACTOR_IDLE (a minute): the janitor's check ends the actor
      expect(actors.has(a.agent.id)).toBe(true)
      yield* TestClock.adjust("1 minute")
      yield* realSleep(100)
      yield* TestClock.adjust("1 minute")
      yield* waitFor("the account actor's eviction", () => actors.has(a.agent.id) ? undefined : true)
    }))

  it.effect("an agent heard only over REST has an actor; 90 minutes of silence turn it offline, then it is evicted", () =>
    Effect.gen(function*() {
      const hub = yield* AgentHub
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      yield* rawRequest("GET", "/api/agent/me", { key: agent.api_key })
      const states = Effect.map(
        eventsOf(human.api_key, "presence.changed"),
        (es) => es.filter((e) => e.handle === agent.agent.handle).map((e) => e.state as string)
      )
      yield* waitForEffect("connected", Effect.map(states, (s) => s.length === 1 ? s : undefined))
      expect(hub.has(agent.agent.id)).toBe(true)

      yield* TestClock.adjust("89 minutes")
      yield* realSleep(300)
      expect(yield* states).toEqual(["connected"])
      yield* TestClock.adjust("2 minutes")
      yield* waitForEffect("offline", Effect.map(states, (s) => s.length === 2 ? s : undefined))
      expect(yield* states).toEqual(["connected", "offline"])

      // idle past AGENT_IDLE_TTL (a minute) once offline: the actor ends and its fiber with it
      yield* TestClock.adjust("2 minutes")
      yield* waitFor("the actor's eviction", () => hub.has(agent.agent.id) ? undefined : true)
    }))

  it.effect("the Wave actor crosses three phase boundaries under the supervisor", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor
      yield* freshHour(5 * MINUTE)
      const { agent } = yield* agentWithTask
      yield* untilEvents(agent.api_key, "presence.changed", 1)
      const clock = yield* Effect.fork(
        supervisor.forever("wave", "clock", cycle("1 second")).pipe(Effect.provide(WavesRepo.Default))
      )
      yield* untilEvents(agent.api_key, "wave.phase", 1)
      yield* settle
      yield* TestClock.adjust("5 minutes")
      yield* untilEvents(agent.api_key, "wave.phase", 2)
      yield* TestClock.adjust("40 minutes")
      yield* untilEvents(agent.api_key, "wave.phase", 3)
      yield* TestClock.adjust("10 minutes")
      yield* untilEvents(agent.api_key, "wave.phase", 4)
      expect((yield* eventsOf(agent.api_key, "wave.phase")).map((e) => e.state)).toEqual([
        "PREPARATION",
        "FLOW",
        "SURFACE",
        "PREPARATION"
      ])
      yield* Fiber.interrupt(clock)
    }))
})
