import { Config, Effect } from "effect"
import { edgeHardening, millis } from "./Switch.js"

/**
 * A per-address penalty box, as fail2ban keeps one: an address that breaks the protocol (an event-socket frame past
 * its limit, 1009; a socket that never authenticates, 4401; a request too slow to arrive, 408) more than `threshold`
 * times within `windowMs` has its new connections not served for `coolMs` (src/Edge/Tarpit.ts says how). A
 * well-behaved client never strikes, so it never sees the box; no address is special, loopback included.
 */
export interface PenaltyOptions {
  /** strikes within the window past which an address is boxed; 0 turns the box off */
  readonly threshold: number
  readonly windowMs: number
  /** how long a boxed address's new connections are not served */
  readonly coolMs: number
  /** addresses remembered at most: past it the oldest is forgotten, so memory stays bounded whatever the attacker */
  readonly maxAddresses: number
  /** a boxed address's connection is held unread until the box opens (`tarpit`), or reset at once (`refuse`) */
  readonly mode: "tarpit" | "refuse"
}

export const defaultPenalty: PenaltyOptions = {
  threshold: 20,
  windowMs: 10_000,
  coolMs: 30_000,
  maxAddresses: 10_000,
  mode: "tarpit"
}

interface Entry {
  strikes: number
  /** when the current window began */
  since: number
  /** boxed until then (0: not boxed) */
  until: number
}

/** how many of the oldest entries a new address looks at for one not boxed to forget, before forgetting the oldest */
const EVICTION_SCAN = 8

/** The box's bookkeeping, its clock given: no timers, one small entry per address that struck. */
export class Strikes {
  private readonly entries = new Map<string, Entry>()
  readonly stats = { strikes: 0, forgotten: 0 }
  constructor(readonly options: PenaltyOptions, private readonly now: () => number) {}

  get size() {
    return this.entries.size
  }

  /** One protocol violation from `address`. Strikes while boxed neither count nor extend the period. */
  strike(address: string | undefined): void {
    const { coolMs, threshold, windowMs } = this.options
    if (address === undefined || address === "" || threshold <= 0) return
    const now = this.now()
    let entry = this.entries.get(address)
    if (entry === undefined) {
      if (this.entries.size >= this.options.maxAddresses) this.forgetOne(now)
      entry = { strikes: 0, since: now, until: 0 }
      this.entries.set(address, entry)
    } else if (entry.until > now) {
      return
    }
    this.stats.strikes++
    if (now - entry.since >= windowMs) {
      entry.strikes = 0
      entry.since = now
    }
    if (++entry.strikes > threshold) {
      entry.strikes = 0
      entry.since = now + coolMs
      entry.until = now + coolMs
      // boxed addresses move to the back: the oldest entries, forgotten first, are the quiet ones
      this.entries.delete(address)
      this.entries.set(address, entry)
    }
  }

  /** How many more ms `address` is boxed for, or 0 if it is not. */
  boxedFor(address: string | undefined): number {
    const entry = address === undefined ? undefined : this.entries.get(address)
    return entry === undefined ? 0 : Math.max(0, entry.until - this.now())
  }

  /** Forgets an address not boxed among the oldest few, else the oldest: bounded work per new address. */
  private forgetOne(now: number) {
    let oldest: string | undefined
    let seen = 0
    for (const [address, entry] of this.entries) {
      oldest ??= address
      if (entry.until <= now) {
        oldest = address
        break
      }
      if (++seen >= EVICTION_SCAN) break
    }
    if (oldest !== undefined) {
      this.entries.delete(oldest)
      this.stats.forgotten++
    }
  }
}

/**
 * One box per process, shared by both servers and the event socket: an address boxed for what it did on one port
 * is boxed on the other. Servers and sockets built without it (tests), or with `EDGE_HARDENING=false` or a threshold
 * of 0, have no box (`strikes` undefined): nothing is counted, nobody is held.
 */
export class PenaltyBox extends Effect.Service<PenaltyBox>()("Edge/PenaltyBox", {
  effect: Effect.gen(function*() {
    const on = yield* edgeHardening
    const threshold = yield* Config.integer("HTTP_PENALTY_THRESHOLD").pipe(Config.withDefault(defaultPenalty.threshold))
    const windowMs = yield* millis("HTTP_PENALTY_WINDOW", defaultPenalty.windowMs)
    const coolMs = yield* millis("HTTP_PENALTY_DURATION", defaultPenalty.coolMs)
    const maxAddresses = yield* Config.integer("HTTP_PENALTY_MAX_ADDRESSES").pipe(
      Config.withDefault(defaultPenalty.maxAddresses)
    )
    const mode = yield* Config.literal("tarpit", "refuse")("HTTP_PENALTY_MODE").pipe(
      Config.withDefault(defaultPenalty.mode)
    )
    const clock = yield* Effect.clock
    const options = { threshold, windowMs, coolMs, maxAddresses: Math.max(1, maxAddresses), mode }
    const strikes = !on || threshold <= 0 ? undefined : new Strikes(options, () => clock.unsafeCurrentTimeMillis())
    return { strikes }
  })
}) {}
