import type { Ids } from "@shoal/domain"
import { Clock, Effect } from "effect"
import type { Heartbeat } from "../Auth/Heartbeat.js"
import type { Agent } from "./AgentActor.js"

const KEEPALIVE_TOUCH_MS = 5 * 60_000

/**
 * One keep-alive round over the hub's actors: a WebSocket ping per socket; one unanswered round means the peer is
 * gone. An answered ping is a sign of life, so an agent holding a healthy socket stays connected; it is recorded
 * every few minutes, not every round (a heartbeat is a row update, and 90 minutes is the window).
 */
export const round = (agents: ReadonlyMap<Ids.UserId, Agent>, heartbeat: Heartbeat) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const answered: Array<Ids.UserId> = []
    for (const agent of agents.values()) {
      let alive = false
      for (const conn of agent.sockets) {
        if (!conn.alive) {
          conn.terminate()
          continue
        }
        alive = true
        conn.alive = false
        conn.ws.ping()
      }
      if (alive && now - (heartbeat.lastSeen(agent.userId) ?? 0) >= KEEPALIVE_TOUCH_MS) answered.push(agent.userId)
    }
    yield* Effect.forEach(answered, (id) => heartbeat.touch(id), { discard: true })
  })
