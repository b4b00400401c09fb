import { Array as Arr, Clock, Duration, Effect, Exit, Queue, type Scope } from "effect"
import { Supervisor } from "../Supervisor.js"
import { type Agent, tell } from "./AgentActor.js"
import { lingerWhileMore } from "./Linger.js"
import type { Presence } from "./Presence.js"

/**
 * Agents whose connection is to be announced, gathered by one fiber into a transaction per few hundred rather than
 * a fiber each (a connect storm of 10,000 agents). An agent in here counts as `running`, so the hub's clock does
 * not tick it meanwhile; one asked again while its transaction ran is announced by its own actor.
 */
export const make = (presence: Presence): Effect.Effect<(agent: Agent) => void, never, Scope.Scope | Supervisor> =>
  Effect.gen(function*() {
    const supervisor = yield* Supervisor
    const waiting = yield* Queue.unbounded<Agent>()

    /** synchronous: callable from a socket's callback, outside any fiber */
    const announceConnected = (agent: Agent): void => {
      if (agent.running) return
      agent.running = true
      waiting.unsafeOffer(agent)
    }

    const linger = Duration.toMillis(presence.linger)
    const maxLinger = Math.max(linger, Duration.toMillis(presence.maxLinger))
    yield* Effect.gen(function*() {
      const first = yield* Queue.take(waiting)
      // lingers again while agents keep coming, up to `maxLinger`: a storm's sockets get their `ready` first, and its
      // presence is written once it calms, in transactions of 500 (bench/README.md, fanout, conn5)
      let before = yield* Queue.size(waiting)
      yield* lingerWhileMore(
        linger,
        maxLinger,
        Effect.map(Queue.size(waiting), (size) => {
          const grew = size > before
          before = size
          return grew
        })
      )
      const all = [first, ...yield* Queue.takeAll(waiting)]
      // an agent not yet through its transaction when the turn dies goes back in for the restarted turn: left
      // `running`, the hub's clock would never tick it again (offline, eviction)
      let done = 0
      yield* Effect.onError(
        Effect.gen(function*() {
          for (const batch of Arr.chunksOf(all, 500)) {
            const ids = batch.map((agent) => {
              agent.wantConnected = false
              return agent.userId
            })
            const exit = yield* Effect.exit(presence.connectedAll(ids))
            const now = yield* Clock.currentTimeMillis
            if (Exit.isFailure(exit)) yield* Effect.logWarning("presence transition failed; retrying", exit.cause)
            for (const agent of batch) {
              agent.presence = "connected"
              // as a failed transition of the agent's own fiber: the sweep tries it again in a minute
              if (Exit.isFailure(exit)) agent.seen = now - presence.window + 60_000
              agent.running = false
              done++
              if (agent.wantConnected) tell(agent, { _tag: "Announce" })
            }
          }
        }),
        () => Queue.offerAll(waiting, all.slice(done))
      )
    }).pipe((turn) => supervisor.forever("hub", "announcer", turn), Effect.forkScoped)

    return announceConnected
  })
