export interface FloodBrakeOptions {
  /** Queries the rate limiter dropped within `windowMs` that make a flood; 0 turns the brake off. */
  readonly drops: number
  readonly windowMs: number
  /** How long UDP stops listening once a flood is seen. */
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
