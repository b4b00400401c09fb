import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import type { Connection } from "./Connection.js"
import type { EventRow } from "./EventRow.js"
import type { BlockFrames } from "./Frames.js"

/** What an agent's inbox carries, in the order it was offered. */
export type Message =
  /** an event read from the table */
  | { readonly _tag: "Row"; readonly row: EventRow }
  /** the `i`th event of a block this node emitted (its frame is built only if a socket takes it) */
  | { readonly _tag: "Frame"; readonly frames: BlockFrames; readonly i: number }
  /** its presence window or its idle time may have run out (from the hub's clock) */
  | { readonly _tag: "Tick" }
  /** announce it connected: it was asked again while its last announcement ran */
  | { readonly _tag: "Announce" }
  /** a defect, for tests of supervision */
  | { readonly _tag: "Crash" }

export const tick: Message = { _tag: "Tick" }

/**
 * One account's actor state: its sockets, its inbox and its presence. The state lives outside the fiber so a
 * restarted actor picks up where its predecessor died (the batch it was applying, the messages still queued);
 * nothing is sent twice because a socket drops any cursor at or below what it sent.
 */
export class Agent {
  /** presence applies to agents; "unknown" until a socket or a lookup says */
  kind: "agent" | "human" | "unknown" = "unknown"
  readonly sockets = new Set<Connection>()
  presence: "unknown" | "connected" | "offline" = "unknown"
  wantConnected = false
  /** a floor under the heartbeat's last-seen time: from the database after a restart or from another node */
  seen = 0
  idleSince = Number.POSITIVE_INFINITY
  /** a presence transition is under way (in the Announcer's batch or in this actor): no second one starts */
  running = false
  /** offered and not taken yet, in order: a plain array, 2 KB lighter per idle actor than a `Mailbox` */
  inbox: Array<Message> = []
  /** the batch being applied and how far: kept across a restart so no message is lost */
  batch: ReadonlyArray<Message> | undefined = undefined
  at = 0
  /** set while the fiber waits on an empty inbox: resumes it with its next turn */
  wake: ((turn: Effect.Effect<void>) => void) | undefined = undefined
  constructor(readonly userId: Ids.UserId, readonly behaviour: Behaviour) {}
}

/** What the actor does besides handing events to its sockets; `true` from `tick` means it is done (evicted). */
export interface Behaviour {
  readonly tick: (agent: Agent) => Effect.Effect<boolean>
  readonly announce: (agent: Agent) => Effect.Effect<void>
}

const deliver = (agent: Agent, m: Message & { readonly _tag: "Row" | "Frame" }) => {
  if (m._tag === "Frame") { for (const conn of agent.sockets) conn.pushFrame(m.frames, m.i) }
  else for (const conn of agent.sockets) conn.push(m.row)
}

/**
 * Tells the actor a message. An event that finds the actor idle is applied at once, in the dispatcher's turn (the
 * order is the same: nothing is ahead of it), so a fan-out to 10,000 sockets waits for no fiber wake-ups.
 */
export const tell = (agent: Agent, m: Message): void => {
  if ((m._tag === "Frame" || m._tag === "Row") && idle(agent)) return deliver(agent, m)
  agent.inbox.push(m)
  const wake = agent.wake
  if (wake !== undefined) {
    agent.wake = undefined
    wake(run(agent))
  }
}

const idle = (agent: Agent) => agent.inbox.length === 0 && agent.batch === undefined

/** `tell` for the `i`th event of a block, with no message allocated when the actor takes it at once. */
export const tellFrame = (agent: Agent, frames: BlockFrames, i: number): void => {
  if (!idle(agent)) return tell(agent, { _tag: "Frame", frames, i })
  for (const conn of agent.sockets) conn.pushFrame(frames, i)
}

class InjectedDefect extends Error {}

/** Applies the batch from where it stands; `true` once the actor is evicted. */
const apply = (agent: Agent, behaviour: Behaviour): Effect.Effect<boolean> => {
  const batch = agent.batch!
  while (agent.at < batch.length) {
    // past it before applying it: a message that kills the actor is not applied again by its successor
    const m = batch[agent.at++]!
    switch (m._tag) {
      case "Frame":
      case "Row":
        deliver(agent, m)
        break
      case "Tick":
        return Effect.flatMap(
          behaviour.tick(agent),
          (evicted) => evicted ? Effect.succeed(true) : apply(agent, behaviour)
        )
      case "Announce":
        return Effect.zipRight(behaviour.announce(agent), Effect.suspend(() => apply(agent, behaviour)))
      case "Crash":
        return Effect.die(new InjectedDefect(`injected defect in ${agent.userId}'s actor`))
    }
  }
  agent.batch = undefined
  return Effect.succeed(false)
}

/** The actor's loop: take what is queued, apply it in order; ends when `tick` evicts it. */
export const run = (agent: Agent): Effect.Effect<void> => Effect.suspend(() => turn(agent))

const turn = (agent: Agent): Effect.Effect<void> => {
  if (agent.batch === undefined) {
    // waiting holds no continuation: `tell` resumes the fiber with its next turn
    if (agent.inbox.length === 0) return Effect.async<void>((resume) => void (agent.wake = resume))
    agent.batch = agent.inbox
    agent.inbox = []
    agent.at = 0
  }
  return Effect.flatMap(apply(agent, agent.behaviour), (evicted) => evicted ? Effect.void : turn(agent))
}
