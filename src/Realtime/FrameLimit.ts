import { Config } from "effect"
import type { Session } from "./SocketSession.js"

/** Default client frames a second an event socket may send, on average (`WS_FRAME_RATE`; 0: no limit). */
export const FRAME_RATE = 20
/** Default frames it may send at once above that rate (`WS_FRAME_BURST`). */
export const FRAME_BURST = 60

/**
 * CONTRACT "Who may do what": client frames are rate-limited per socket, a token bucket of `burst` frames refilled
 * at `perSecond`. A client pinging every few seconds never comes near it; one sending frames in a loop is past it
 * within a burst, and closed 4429 (src/Realtime/EventSocket.ts).
 */
export const FrameLimitConfig = Config.all({
  perSecond: Config.number("WS_FRAME_RATE").pipe(Config.withDefault(FRAME_RATE)),
  burst: Config.integer("WS_FRAME_BURST").pipe(Config.withDefault(FRAME_BURST))
})

/** Takes one frame from the session's bucket at `now` (ms); false once the socket is past its limit. */
export const takeFrame = (limit: Config.Config.Success<typeof FrameLimitConfig>, s: Session, now: number): boolean => {
  if (limit.perSecond <= 0) return true
  const tokens = s.frameTokens === undefined
    ? limit.burst
    : Math.min(limit.burst, s.frameTokens + (now - s.frameAt) * limit.perSecond / 1000)
  const allowed = tokens >= 1
  s.frameAt = now
  s.frameTokens = allowed ? tokens - 1 : tokens
  return allowed
}
