import type { Ids } from "@shoal/domain"
import { Clock, Effect } from "effect"
import type { Heartbeat } from "../Auth/Heartbeat.js"
import type { Agent, Behaviour } from "./AgentActor.js"
import type { Presence } from "./Presence.js"

/**
 * What an agent's actor does about presence. Its window is counted from the last heartbeat; when the hub's clock
 * says the window or its idle time may have run out, the actor asks the database, under the presence row's lock,
 * whether it is offline, and evicts itself (from `agents`) once idle.
 */
export const make = (options: {
  readonly presence: Presence
  readonly heartbeat: Heartbeat
  /** an actor offline with no socket for this long ends */
  readonly idleTtl: number
  readonly agents: Map<Ids.UserId, Agent>
}) => {
  const { agents, heartbeat, idleTtl, presence } = options

  const lastSeen = (agent: Agent) => Math.max(heartbeat.lastSeen(agent.userId) ?? 0, agent.seen)
  /** its window ran out: the database decides whether it is offline */
  const due = (agent: Agent, now: number) => agent.presence === "connected" && now >= lastSeen(agent) + presence.window
  /** nothing left for the actor to do: it may end */
  const idle = (agent: Agent, now: number) =>
    agent.presence !== "connected" && agent.sockets.size === 0 && !agent.wantConnected && !agent.running &&
    now - agent.idleSince >= idleTtl

  // a failed transition is tried again at a later tick (about a minute) rather than lost or restarting the actor
  const retryLater = (agent: Agent) => (cause: unknown) =>
    Effect.logWarning("presence transition failed; retrying", cause).pipe(
      Effect.zipRight(Clock.currentTimeMillis),
      Effect.map((now) => {
        agent.presence = "connected"
        agent.seen = now - presence.window + 60_000
      })
    )

  const connect = (agent: Agent) =>
    Effect.suspend(() => {
      agent.wantConnected = false
      return Effect.zipRight(presence.connectedAll([agent.userId]), Effect.sync(() => (agent.presence = "connected")))
    }).pipe(Effect.catchAllCause(retryLater(agent)))

  const behaviour: Behaviour = {
    tick: (agent) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if (!agent.running && due(agent, now)) {
          // running while it is decided: a call arriving meanwhile asks to reconnect, and is announced after it
          agent.running = true
          agent.presence = "offline"
          agent.idleSince = now
          yield* presence.offline(agent.userId).pipe(
            Effect.tap((result) => {
              if (result._tag === "StillActive") {
                agent.presence = "connected"
                agent.seen = result.lastSeen
              }
            }),
            Effect.catchAllCause(retryLater(agent))
          )
          agent.running = false
          if (agent.wantConnected) yield* connect(agent)
        }
        if (!idle(agent, yield* Clock.currentTimeMillis)) return false
        agents.delete(agent.userId)
        return true
      }),
    announce: (agent) => (agent.wantConnected && agent.presence !== "connected" ? connect(agent) : Effect.void)
  }

  return { behaviour, due, idle } as const
}
