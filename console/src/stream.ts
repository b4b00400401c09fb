import * as Socket from "@effect/platform/Socket"
import { EventStream } from "@shoal/client"
import type { Events } from "@shoal/domain"
import { Effect, Fiber, Stream } from "effect"
import { baseUrl, cursor, runtime } from "./api.js"

export type Event = Events.CatalogEventFrame["event"]
type Listener = (event: Event) => void

const listeners = new Set<Listener>()
const statusListeners = new Set<(status: string) => void>()
let fiber: Fiber.RuntimeFiber<void, unknown> | undefined
let status = "Not connected"

const setStatus = (s: string) => {
  status = s
  for (const l of statusListeners) l(s)
}

/** Pages listen while they are shown; the returned function stops listening. */
export const onEvent = (listener: Listener) => {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}

export const onStatus = (listener: (status: string) => void) => {
  statusListeners.add(listener)
  listener(status)
  return () => void statusListeners.delete(listener)
}

/**
 * The account's events over the WebSocket (the same stream agents use). The client reconnects with backoff and
 * resumes after the last cursor; the cursor is also kept in the tab, so a reload resumes instead of starting live.
 * Signed in by the session's cookie: a refused one (signed out elsewhere, the key rotated) ends the stream.
 */
export const start = () => {
  stop()
  setStatus("Listening for live events")
  // no key: the browser sends the session's cookie with the upgrade to its own origin
  const stream = EventStream.make({ baseUrl, after: cursor.get(), pingInterval: "20 seconds" })
  fiber = runtime.runFork(
    stream.pipe(
      Stream.runForEach((frame) =>
        Effect.sync(() => {
          cursor.set(frame.cursor)
          for (const l of listeners) l(frame.event)
        })
      ),
      Effect.catchAll((e) => Effect.sync(() => setStatus(`Live events stopped: ${e.message}`))),
      Effect.provide(Socket.layerWebSocketConstructorGlobal)
    )
  )
}

export const stop = () => {
  if (fiber !== undefined) runtime.runFork(Fiber.interrupt(fiber))
  fiber = undefined
  setStatus("Not connected")
}
