import type * as Dgram from "node:dgram"

export interface FloodBrakeOptions {
  /** Queries the rate limiter dropped within `windowMs` that make a flood; 0 turns the brake off. */
  readonly drops: number
  readonly windowMs: number
  /** How long the socket stops reading once a flood is seen. */
  readonly pauseMs: number
  /** The longest pause: a flood that is still there after a pause doubles the next one, up to this. */
  readonly maxPauseMs: number
}

export const defaultFloodBrake: FloodBrakeOptions = { drops: 1_000, windowMs: 100, pauseMs: 50, maxPauseMs: 1_000 }

/**
 * Counts the datagrams the responder drops and says when they make a flood: `drops` of them within `windowMs`.
 * `now` in milliseconds (real time: the brake paces a socket, not the records).
 */
export const makeFloodCounter = (options: FloodBrakeOptions, now: () => number) => {
  let start = Number.NEGATIVE_INFINITY
  let count = 0
  /** One more drop; true when it completes a flood's worth (the count starts over). */
  return (): boolean => {
    const t = now()
    if (t - start >= options.windowMs) {
      start = t
      count = 0
    }
    if (++count < options.drops) return false
    count = 0
    start = Number.NEGATIVE_INFINITY
    return true
  }
}

/**
 * How long each pause lasts. A flood seen again within `windowMs` of the last pause's end outlasted it: the next
 * pause is twice as long, up to `maxPauseMs`. One seen later is a new flood, paused for `pauseMs`. Under a steady
 * flood the socket reads one flood's worth of drops a `maxPauseMs` (bench/README.md, hostile: the server's CPU
 * under a one-source flood, 15 % of a core with fixed 50 ms pauses, 5 % with these).
 */
export const makePauseSchedule = (options: FloodBrakeOptions) => {
  let last = 0
  return (sinceResumeMs: number): number => {
    last = last > 0 && sinceResumeMs < options.windowMs
      ? Math.min(last * 2, Math.max(options.maxPauseMs, options.pauseMs))
      : options.pauseMs
    return last
  }
}

interface RecvHandle {
  recvStart(): number
  recvStop(): number
}

// Node's dgram has no public pause: its UDP handle (the socket's state, behind a symbol) has recvStop/recvStart,
// which libuv's uv_udp_recv_stop/start are. Where it cannot be found the brake does nothing.
export const handleOf = (socket: Dgram.Socket): RecvHandle | undefined => {
  const symbol = Object.getOwnPropertySymbols(socket).find((s) => s.description === "state symbol")
  const state = symbol === undefined ? undefined : (socket as any)[symbol]
  const handle = state?.handle
  return typeof handle?.recvStop === "function" && typeof handle?.recvStart === "function" ? handle : undefined
}

/**
 * A flood of datagrams costs the event loop the API shares one JavaScript callback each, even those the rate limiter
 * drops undecoded (bench/README.md, hostile: a one-process flood of ~230,000 queries/s cut a normal client's
 * requests by 60 %). Once the rate limiter dropped `drops` queries within `windowMs`, the socket stops reading for
 * `pauseMs`, longer while the flood lasts (`makePauseSchedule`): meanwhile the kernel's receive buffer holds what
 * it can and drops the rest, at no cost to the loop. Queries from other sources that arrive during a pause wait for
 * it, or are lost with the flood, and are asked again by their resolvers (under a steady flood the kernel's buffer
 * is full of the flood's datagrams anyway); the API keeps its share of the loop. Returns `dropped` (call it per
 * dropped query) and `close`.
 */
export const makeFloodBrake = (socket: Dgram.Socket, options: FloodBrakeOptions, now: () => number = Date.now) => {
  const handle = options.drops > 0 && options.pauseMs > 0 ? handleOf(socket) : undefined
  const counter = makeFloodCounter(options, now)
  const schedule = makePauseSchedule(options)
  let resumedAt = Number.NEGATIVE_INFINITY
  let timer: NodeJS.Timeout | undefined
  let closed = false
  let pauses = 0
  const resume = () => {
    timer = undefined
    resumedAt = now()
    if (closed) return
    try {
      handle!.recvStart()
    } catch {
      // closed under us
    }
  }
  return {
    dropped: () => {
      if (handle === undefined || timer !== undefined || !counter()) return
      try {
        handle.recvStop()
      } catch {
        return
      }
      pauses++
      timer = setTimeout(resume, schedule(now() - resumedAt))
    },
    close: () => {
      closed = true
      if (timer !== undefined) clearTimeout(timer)
    },
    get pauses() {
      return pauses
    }
  } as const
}
