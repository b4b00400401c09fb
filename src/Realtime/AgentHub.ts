import type { Ids } from "@shoal/domain"
import { Events } from "@shoal/domain"
import { Clock, Config, Duration, Effect, FiberMap, Stream } from "effect"
import { Heartbeat } from "../Auth/Heartbeat.js"
import * as Announcer from "./Announcer.js"
import type { Connection } from "./Connection.js"
import type { Block, EventRow } from "./EventRow.js"
import { blockFrames } from "./Frames.js"
import { Presence } from "./Presence.js"

const KEEPALIVE_TOUCH_MS = 5 * 60_000
// longer than any key check takes: one that read a key just before its revocation still attaches after it
const REVOKED_MEMORY_MS = 60_000
export const KEY_ROTATED = "the API key was rotated; reconnect with the new key"

/** What this node knows of one account: its live sockets and, for agents, its presence. */
interface Agent {
  readonly userId: Ids.UserId
  /** presence applies to agents; "unknown" until a socket or a lookup says */
  kind: "agent" | "human" | "unknown"
  readonly sockets: Set<Connection>
  presence: "unknown" | "connected" | "offline"
  wantConnected: boolean
  /** a floor under the heartbeat's last-seen time: from the database after a restart or from another node */
  seen: number
  idleSince: number
  /** its fiber is alive (it has a transition to make) */
  running: boolean
}

/**
 * What this node holds per account: its live sockets and, for agents, presence. The dispatcher hands each event
 * to the account's entry, which passes it to its sockets synchronously (no queue hop, no wake-up per event).
 *
 * Each account gets its own supervised fiber when it has something to do (announce a connection, or a presence
 * window that ran out) and the fiber ends when it has not; one sweep checks the windows. An Effect fiber costs
 * 3–4 KB even asleep (measured), so a fiber per connected agent would take a third of the per-socket memory budget.
 */
export class AgentHub extends Effect.Service<AgentHub>()("Realtime/AgentHub", {
  scoped: Effect.gen(function*() {
    const presence = yield* Presence
    const heartbeat = yield* Heartbeat
    const idleTtl = Duration.toMillis(yield* Config.duration("AGENT_IDLE_TTL").pipe(Config.withDefault("1 minute")))
    const pingEvery = yield* Config.duration("WS_PING_INTERVAL").pipe(Config.withDefault(Duration.seconds(30)))
    const sweepEvery = yield* Config.duration("PRESENCE_SWEEP_INTERVAL").pipe(Config.withDefault(Duration.seconds(30)))
    const agents = new Map<Ids.UserId, Agent>()
    const fibers = yield* FiberMap.make<string>()
    /** every event up to here has been handed out; a socket that attaches now sees only later ones live */
    let position = 0
    /** key hash → when this node learnt it was revoked */
    const revoked = new Map<string, number>()

    const lastSeen = (agent: Agent) => Math.max(heartbeat.lastSeen(agent.userId) ?? 0, agent.seen)

    /** The account's transitions, one at a time, until none is left. */
    const work = (agent: Agent): Effect.Effect<void> =>
      Effect.gen(function*() {
        while (true) {
          if (agent.wantConnected) {
            agent.wantConnected = false
            yield* presence.connected(agent.userId)
            agent.presence = "connected"
            continue
          }
          const now = yield* Clock.currentTimeMillis
          if (agent.presence === "connected" && now >= lastSeen(agent) + presence.window) {
            // set first: a call arriving during the transaction asks to reconnect, and is announced after it
            agent.presence = "offline"
            agent.idleSince = now
            const result = yield* presence.offline(agent.userId)
            if (result._tag === "StillActive") {
              agent.presence = "connected"
              agent.seen = result.lastSeen
            }
            continue
          }
          if (!agent.wantConnected) return void (agent.running = false)
        }
      }).pipe(
        Effect.catchAllCause((cause) =>
          // a failed transition is tried again by the sweep in a minute rather than lost
          Effect.zipRight(
            Effect.logWarning("presence transition failed; retrying", cause),
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.sync(() => {
                agent.presence = "connected"
                agent.seen = now - presence.window + 60_000
                agent.running = false
              }))
          )
        )
      )

    const ensureRunning = (agent: Agent) =>
      Effect.suspend(() => {
        if (agent.running) return Effect.void
        agent.running = true
        return Effect.asVoid(FiberMap.run(fibers, agent.userId, work(agent)))
      })

    const announceNow = yield* Announcer.make<Agent>(presence, ensureRunning)

    /** The account's entry, created if needed. */
    const entry = (userId: Ids.UserId): Agent => {
      let agent = agents.get(userId)
      if (agent === undefined) {
        agent = {
          userId,
          kind: "unknown",
          sockets: new Set(),
          presence: "unknown",
          wantConnected: false,
          seen: 0,
          idleSince: Number.POSITIVE_INFINITY,
          running: false
        }
        agents.set(userId, agent)
      }
      return agent
    }

    /** A sign of life from an agent: announces it connected if it was not (synchronous: the upgrade's front door). */
    const touchNow = (userId: Ids.UserId): void => {
      const agent = entry(userId)
      agent.kind = "agent"
      if (agent.presence !== "connected") agent.wantConnected = true
      if (agent.wantConnected) announceNow(agent)
    }
    const touch = (userId: Ids.UserId) => Effect.sync(() => touchNow(userId))

    /** Registers a socket for live events; returns the cursor it goes live after. */
    const attachNow = (conn: Connection, kind: "agent" | "human"): number => {
      const agent = entry(conn.userId)
      agent.kind = kind
      agent.sockets.add(conn)
      // its key check read the key before a revocation this node has already handled
      if (revoked.has(conn.keyHash)) conn.close(Events.CloseCodes.unauthorized, KEY_ROTATED)
      return position
    }

    const detachNow = (conn: Connection, now: number): void => {
      const agent = agents.get(conn.userId)
      if (agent === undefined || !agent.sockets.delete(conn)) return
      if (agent.sockets.size === 0) agent.idleSince = now
    }
    const detach = (conn: Connection) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => detachNow(conn, now)))

    /** From the dispatcher, in cursor order; synchronous so `attach` sees a consistent `position`. */
    const deliver = (rows: ReadonlyArray<EventRow>, upTo: number) => {
      for (const row of rows) {
        const agent = agents.get(row.recipientId)
        if (agent !== undefined) { for (const conn of agent.sockets) conn.push(row) }
      }
      if (upTo > position) position = upTo
    }

    /**
     * A block this node emitted, from memory (the dispatcher's next in line), as `deliver`: each event's frame is
     * built from the parts the block's events share (Frames.ts), with no row object unless a socket holds it back.
     */
    const deliverBlock = (block: Block) => {
      const frames = blockFrames(block)
      const { recipients } = block
      for (let i = 0; i < recipients.length; i++) {
        const agent = agents.get(recipients[i]!)
        if (agent !== undefined) { for (const conn of agent.sockets) conn.pushFrame(frames, i) }
      }
      if (block.hi > position) position = block.hi
    }

    const start = (at: number) =>
      Effect.sync(() => {
        if (at > position) position = at
      })

    const disconnect = (userId: Ids.UserId, code: number, reason: string) =>
      Effect.sync(() => {
        for (const conn of agents.get(userId)?.sockets ?? []) conn.close(code, reason)
      })

    /** Closes (4401) the account's sockets opened with these keys, now and if one attaches in the next minute. */
    const revoke = (userId: Ids.UserId, hashes: ReadonlyArray<string>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          for (const hash of hashes) revoked.set(hash, now)
          for (const conn of agents.get(userId)?.sockets ?? []) {
            if (hashes.includes(conn.keyHash)) conn.close(Events.CloseCodes.unauthorized, KEY_ROTATED)
          }
        }))

    /** key hash → account, of the sockets open on this node */
    const keys = () => {
      const found = new Map<string, Ids.UserId>()
      for (const agent of agents.values()) {
        for (const conn of agent.sockets) if (!conn.closed) found.set(conn.keyHash, agent.userId)
      }
      return found
    }

    // calls (heartbeats) from an agent that this node did not see recently may be a return from offline
    yield* heartbeat.wakes.pipe(
      Stream.runForEach(({ userId, userType }) => {
        // known from the caller's key: no lookup (10,000 agents calling in after a restart were 10,000 queries in
        // a row, and the presence batches behind them held one agent each)
        if (userType !== undefined) return userType === "agent" ? touch(userId) : Effect.void
        const kind = agents.get(userId)?.kind ?? "unknown"
        if (kind !== "unknown") return kind === "agent" ? touch(userId) : Effect.void
        return Effect.flatMap(presence.isAgent(userId), (agent) => agent ? touch(userId) : Effect.void)
      }),
      Effect.forkScoped
    )

    // after a restart: watch again the agents a stopped node left connected, so they still go offline
    yield* presence.resumable.pipe(
      Effect.flatMap((rows) =>
        Effect.forEach(rows, (r) =>
          Effect.sync(() => {
            const agent = entry(r.user_id)
            agent.kind = "agent"
            agent.seen = Math.max(agent.seen, r.seen.getTime())
            if (agent.presence === "unknown") agent.presence = "connected"
          }), { discard: true })
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("presence resume failed", cause)),
      Effect.forkScoped
    )

    // presence windows and idle entries: one pass over the entries, which are plain objects
    yield* Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const [hash, at] of revoked) if (now - at >= REVOKED_MEMORY_MS) revoked.delete(hash)
      const due: Array<Agent> = []
      for (const agent of agents.values()) {
        if (agent.running) continue
        if (agent.presence === "connected") {
          if (now >= lastSeen(agent) + presence.window) due.push(agent)
        } else if (agent.sockets.size === 0 && !agent.wantConnected && now - agent.idleSince >= idleTtl) {
          agents.delete(agent.userId)
        }
      }
      yield* Effect.forEach(due, ensureRunning, { discard: true })
    }).pipe(Effect.delay(sweepEvery), Effect.forever, Effect.forkScoped)

    // keep-alive: a WebSocket ping per socket; one unanswered round means the peer is gone. An answered ping is
    // a sign of life, so an agent holding a healthy socket stays connected; it is recorded every few minutes, not
    // every round (a heartbeat is a row update, and 90 minutes is the window).
    yield* Effect.gen(function*() {
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
    }).pipe(Effect.delay(pingEvery), Effect.forever, Effect.forkScoped)

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const agent of agents.values()) for (const conn of agent.sockets) conn.close(1001, "server shutting down")
      })
    )

    return {
      attachNow,
      detach,
      detachNow,
      touch,
      touchNow,
      deliver,
      deliverBlock,
      start,
      disconnect,
      revoke,
      keys,
      /** every event up to this cursor has been handed out on this node */
      position: () => position,
      /** accounts with an entry on this node (tests, metrics) */
      size: () => agents.size,
      /** open sockets on this node, and the agents holding at least one (`GET /metrics`, at each scrape) */
      connected: () => {
        let sockets = 0
        let connected = 0
        for (const agent of agents.values()) {
          sockets += agent.sockets.size
          if (agent.kind === "agent" && agent.sockets.size > 0) connected++
        }
        return { sockets, agents: connected }
      }
    } as const
  })
}) {}
