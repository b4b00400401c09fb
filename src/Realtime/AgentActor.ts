import type { Ids } from "@shoal/domain"
import { Chunk, Effect, type Mailbox } from "effect"
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
 * One account's actor state: its sockets, its inbox and its presence. The fiber that runs `run` is the only one
 * that hands events to the sockets; the state lives outside the fiber so a restarted actor picks up where its
 * predecessor died (the batch it was applying, the messages still queued), and nothing is sent twice because a
 * socket drops any cursor at or below what it sent.
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
  /** the batch being applied and how far: kept across a restart so no message is lost */
  batch: ReadonlyArray<Message> | undefined = undefined
  at = 0
  constructor(readonly userId: Ids.UserId, readonly inbox: Mailbox.Mailbox<Message>) {}
}

/** What the actor does besides handing events to its sockets; `true` from `tick` means it is done (evicted). */
export interface Behaviour {
  readonly tick: (agent: Agent) => Effect.Effect<boolean>
  readonly announce: (agent: Agent) => Effect.Effect<void>
}

class InjectedDefect extends Error {}

/** The actor's loop: take what is queued, apply it in order; ends when `tick` evicts it. */
export const run = (agent: Agent, behaviour: Behaviour): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (true) {
      if (agent.batch === undefined) {
        const [messages] = yield* agent.inbox.takeAll
        agent.batch = Chunk.toReadonlyArray(messages)
        agent.at = 0
      }
      const batch = agent.batch
      while (agent.at < batch.length) {
        // past it before applying it: a message that kills the actor is not applied again by its successor
        const m = batch[agent.at++]!
        switch (m._tag) {
          case "Frame":
            for (const conn of agent.sockets) conn.pushFrame(m.frames, m.i)
            break
          case "Row":
            for (const conn of agent.sockets) conn.push(m.row)
            break
          case "Tick":
            if (yield* behaviour.tick(agent)) return
            break
          case "Announce":
            yield* behaviour.announce(agent)
            break
          case "Crash":
            return yield* Effect.die(new InjectedDefect(`injected defect in ${agent.userId}'s actor`))
        }
      }
      agent.batch = undefined
    }
  })
