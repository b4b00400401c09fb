import type { Ids } from "@shoal/domain"
import { Events } from "@shoal/domain"
import { Clock, Config, Duration, Effect, FiberMap, FiberRef, FiberRefs, Runtime, Stream } from "effect"
import { Heartbeat } from "../Auth/Heartbeat.js"
import { Supervisor } from "../Supervisor.js"
import { Agent, run, tell, tellFrame, tick } from "./AgentActor.js"
import * as AgentPresence from "./AgentPresence.js"
import * as Announcer from "./Announcer.js"
import type { Connection } from "./Connection.js"
import type { Block, EventRow } from "./EventRow.js"
import { blockFrames } from "./Frames.js"
import * as Keepalive from "./Keepalive.js"
import { Presence } from "./Presence.js"

// longer than any key check takes: one that read a key just before its revocation still attaches after it
const REVOKED_MEMORY_MS = 60_000
export const KEY_ROTATED = "the API key was rotated; reconnect with the new key"
export const SIGNED_OUT = "the console session ended (signed out or expired); sign in again"

/**
 * `FiberMap.runtime` for thousands of long-lived actors: each is forked with the hub's FiberRefs as they stand, not
 * their history (a fork copies the stack of each FiberRef it sets: 168 bytes per actor for the context alone).
 */
const forkInto = <K>(fibers: FiberMap.FiberMap<K>) =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const refs = new Map<FiberRef.FiberRef<any>, readonly [readonly [any, any]]>()
    for (const [ref, stack] of runtime.fiberRefs.locals) if (ref !== FiberRef.currentContext) refs.set(ref, [stack[0]])
    const runFork = Runtime.runFork(Runtime.make({ ...runtime, fiberRefs: FiberRefs.unsafeMake(refs) }))
    return (key: K, actor: Effect.Effect<void>) => FiberMap.unsafeSet(fibers, key, runFork(actor))
  })

/**
 * The agent actors of this node: one supervised fiber per connected (or recently active) account in a `FiberMap`
 * keyed by user id. An actor (AgentActor.ts) hands the dispatcher's events to the account's sockets in cursor order
 * and, for agents, owns presence (AgentPresence.ts): the hub's clock ticks it when its window or idle time may have
 * run out. An agent heard only over REST (heartbeats) has an actor too.
 */
export class AgentHub extends Effect.Service<AgentHub>()("Realtime/AgentHub", {
  scoped: Effect.gen(function*() {
    const presence = yield* Presence
    const heartbeat = yield* Heartbeat
    const supervisor = yield* Supervisor
    const idleTtl = Duration.toMillis(yield* Config.duration("AGENT_IDLE_TTL").pipe(Config.withDefault("1 minute")))
    const pingEvery = yield* Config.duration("WS_PING_INTERVAL").pipe(Config.withDefault(Duration.seconds(30)))
    const sweepEvery = yield* Config.duration("PRESENCE_SWEEP_INTERVAL").pipe(Config.withDefault(Duration.seconds(30)))
    const agents = new Map<Ids.UserId, Agent>()
    // forks into the hub's own context (not the caller's: a request's fiber would be kept alive by its actor)
    const fibers = yield* FiberMap.make<Ids.UserId>()
    const fork = yield* forkInto(fibers)
    /** every event up to here has been offered to the actors; a socket that attaches now sees only later ones */
    let position = 0
    /** key hash → when this node learnt it was revoked */
    const revoked = new Map<string, number>()

    const { behaviour, due, idle } = AgentPresence.make({ presence, heartbeat, idleTtl, agents })

    /** The account's actor, started if it has none. */
    const actorOf = (userId: Ids.UserId): Effect.Effect<Agent> =>
      Effect.sync(() => {
        const found = agents.get(userId)
        if (found !== undefined) return found
        const agent = new Agent(userId, behaviour)
        agents.set(userId, agent)
        fork(userId, supervisor.supervise("agent", userId, run(agent), { onStop: stopped(agent) }))
        return agent
      })

    // given up on: its clients reconnect (and get a fresh actor) rather than wait on a dead one
    const stopped = (agent: Agent) =>
      Effect.sync(() => {
        if (agents.get(agent.userId) === agent) agents.delete(agent.userId)
        for (const conn of agent.sockets) conn.close(1011, "internal error; reconnect")
      })

    // a connect storm's announcements gathered into a few transactions
    const announceNow = yield* Announcer.make(presence)

    /** A sign of life from an agent: its actor announces it connected if it was not. */
    const touch = (userId: Ids.UserId) =>
      Effect.map(actorOf(userId), (agent) => {
        agent.kind = "agent"
        if (agent.presence !== "connected") agent.wantConnected = true
        if (agent.wantConnected) announceNow(agent)
      })

    /** Registers a socket with its account's actor; returns the cursor it goes live after. */
    const attach = (conn: Connection, kind: "agent" | "human") =>
      Effect.map(actorOf(conn.userId), (agent) => {
        agent.kind = kind
        agent.sockets.add(conn)
        // its key check read the key before a revocation this node has already handled
        const closedBy = conn.sessionHash !== undefined && revoked.has(conn.sessionHash)
          ? SIGNED_OUT
          : revoked.has(conn.keyHash)
          ? KEY_ROTATED
          : undefined
        if (closedBy !== undefined) conn.close(Events.CloseCodes.unauthorized, closedBy)
        // events up to here were offered before the socket joined: those still queued are dropped by its cursor
        return position
      })

    const detach = (conn: Connection, now: number): void => {
      const agent = agents.get(conn.userId)
      if (agent === undefined || !agent.sockets.delete(conn)) return
      if (agent.sockets.size === 0) agent.idleSince = now
    }

    /** From the dispatcher, in cursor order: each event to its recipient's actor, if it has sockets here. */
    const deliver = (rows: ReadonlyArray<EventRow>, upTo: number) => {
      for (const row of rows) {
        const agent = agents.get(row.recipientId)
        if (agent !== undefined && agent.sockets.size > 0) tell(agent, { _tag: "Row", row })
      }
      if (upTo > position) position = upTo
    }

    /** A block this node emitted, from memory, as `deliver`: frames are built from the parts its events share. */
    const deliverBlock = (block: Block) => {
      const frames = blockFrames(block)
      const { recipients } = block
      for (let i = 0; i < recipients.length; i++) {
        const agent = agents.get(recipients[i]!)
        if (agent !== undefined && agent.sockets.size > 0) tellFrame(agent, frames, i)
      }
      if (block.hi > position) position = block.hi
    }

    const disconnect = (userId: Ids.UserId, code: number, reason: string) =>
      Effect.sync(() => {
        for (const conn of agents.get(userId)?.sockets ?? []) conn.close(code, reason)
      })

    /**
     * Closes (4401) the account's sockets opened with these keys (or console sessions), now and if one attaches in
     * the next minute.
     */
    const revoke = (userId: Ids.UserId, hashes: ReadonlyArray<string>) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        for (const hash of hashes) revoked.set(hash, now)
        for (const conn of agents.get(userId)?.sockets ?? []) {
          if (conn.openedWith(hashes)) {
            conn.close(Events.CloseCodes.unauthorized, hashes.includes(conn.keyHash) ? KEY_ROTATED : SIGNED_OUT)
          }
        }
      })

    /** key hash (and console session token hash) → account, of the sockets open on this node */
    const keys = () => {
      const found = new Map<string, Ids.UserId>()
      for (const agent of agents.values()) {
        for (const conn of agent.sockets) {
          if (conn.closed) continue
          found.set(conn.keyHash, agent.userId)
          if (conn.sessionHash !== undefined) found.set(conn.sessionHash, agent.userId)
        }
      }
      return found
    }

    // calls (heartbeats) from an agent that this node did not see recently may be a return from offline
    yield* Effect.forkScoped(supervisor.supervise(
      "hub",
      "wakes",
      heartbeat.wakes.pipe(Stream.runForEach(({ userId, userType }) => {
        // known from the caller's key: no lookup (10,000 agents calling in after a restart are no 10,000 queries)
        const kind = userType ?? agents.get(userId)?.kind ?? "unknown"
        if (kind !== "unknown") return kind === "agent" ? touch(userId) : Effect.void
        return Effect.flatMap(presence.isAgent(userId), (agent) => agent ? touch(userId) : Effect.void)
      }))
    ))

    // after a restart: an actor again for each agent a stopped node left connected, so it still goes offline
    yield* presence.resumable.pipe(
      Effect.flatMap((rows) =>
        Effect.forEach(rows, (r) =>
          Effect.map(actorOf(r.user_id), (agent) => {
            agent.kind = "agent"
            agent.seen = Math.max(agent.seen, r.seen.getTime())
            if (agent.presence === "unknown") agent.presence = "connected"
          }), { discard: true })
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("presence resume failed", cause)),
      Effect.forkScoped
    )

    // the actors' clock: one fiber ticks each actor whose window or idle time ran out (a heartbeat moves its
    // deadline by being recorded)
    yield* supervisor.every(
      "hub",
      "clock",
      sweepEvery,
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        for (const [hash, at] of revoked) if (now - at >= REVOKED_MEMORY_MS) revoked.delete(hash)
        for (const agent of agents.values()) {
          if (!agent.running && (due(agent, now) || idle(agent, now))) tell(agent, tick)
        }
      })
    )

    // keep-alive: a ping per socket, one unanswered round and the peer is gone (src/Realtime/Keepalive.ts)
    yield* Effect.forkScoped(supervisor.forever("hub", "ping", Keepalive.turns(agents, heartbeat, pingEvery)))

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const agent of agents.values()) for (const conn of agent.sockets) conn.close(1001, "server shutting down")
      })
    )

    return {
      attach,
      detach,
      touch,
      deliver,
      deliverBlock,
      disconnect,
      revoke,
      keys,
      /** a defect in the account's actor (tests of supervision): it restarts, its sockets keep their stream */
      crash: (userId: Ids.UserId) =>
        Effect.sync(() => {
          const agent = agents.get(userId)
          if (agent !== undefined) tell(agent, { _tag: "Crash" })
        }),
      position: () => position,
      /** accounts with an actor on this node (tests, metrics) */
      size: () => agents.size,
      has: (userId: Ids.UserId) => agents.has(userId),
      fibers: FiberMap.size(fibers),
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
