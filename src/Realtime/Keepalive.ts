import type { Ids } from "@shoal/domain"
import { Clock, Duration, Effect, Option } from "effect"
import type { Heartbeat } from "../Auth/Heartbeat.js"
import type { Agent } from "./AgentActor.js"

const KEEPALIVE_TOUCH_MS = 5 * 60_000
/** turns a keep-alive round is spread over */
const PING_SLICES = 30

/**
 * The hub's keep-alive: a WebSocket ping per socket; one unanswered round means the peer is gone. An answered ping
 * is a sign of life, recorded every few minutes (a heartbeat is a row update; the window is 90 minutes). A round
 * (`every`) is spread over PING_SLICES turns, each pinging its share of the agents of the round's start, so 5,000
 * pings never hold the event loop at once (bench/README.md, fleet). Returns one turn, delayed.
 */
export const turns = (agents: ReadonlyMap<Ids.UserId, Agent>, heartbeat: Heartbeat, every: Duration.Duration) => {
  const round = { agents: [] as Array<Agent>, at: 0, per: 0 }
  return Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    if (round.at >= round.agents.length) {
      round.agents = [...agents.values()]
      round.at = 0
      round.per = Math.ceil(round.agents.length / PING_SLICES)
    }
    const end = Math.min(round.agents.length, round.at + round.per)
    const answered: Array<Ids.UserId> = []
    for (; round.at < end; round.at++) {
      const agent = round.agents[round.at]!
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
    if (round.at >= round.agents.length) round.agents = []
    yield* Effect.forEach(answered, (id) => heartbeat.touch(id), { discard: true })
  }).pipe(Effect.delay(Duration.divide(every, PING_SLICES).pipe(Option.getOrElse(() => every))))
}
