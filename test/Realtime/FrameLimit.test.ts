import { HttpServer } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Net from "node:net"
import { rawRequest } from "../support/Raw.js"
import { openSocket, realSleep, RealtimeApp, waitFor } from "../support/Realtime.js"
import { signUp } from "../support/TestApp.js"

// CONTRACT "Who may do what": client frames are rate-limited per socket (defaults: 20 a second, bursts of 60); past
// the limit the socket is closed 4429 and read no further, and the server's other work goes on undelayed.

/** One client frame `{"type":"ping"}`: FIN + text, masked with a zero key (a valid mask that leaves the text as is). */
const PING = Buffer.concat([Buffer.from([0x81, 0x80 | 15, 0, 0, 0, 0]), Buffer.from("{\"type\":\"ping\"}")])
const FLOOD_FRAMES = 200_000

/** The server's frames in `data` (unmasked, each under 64 KB): text payloads and the close code. */
const serverFrames = (data: Buffer) => {
  const texts: Array<string> = []
  let close: number | undefined
  for (let at = 0; at + 2 <= data.length;) {
    let length = data[at + 1]! & 0x7f
    let head = 2
    if (length === 126) {
      length = data.readUInt16BE(at + 2)
      head = 4
    }
    if (at + head + length > data.length) break
    const payload = data.subarray(at + head, at + head + length)
    if ((data[at]! & 0x0f) === 0x8) close = payload.readUInt16BE(0)
    else texts.push(payload.toString("utf8"))
    at += head + length
  }
  return { texts, close }
}

/**
 * A raw client: the upgrade with the key, then, once `ready` came, 200,000 ping frames (4 MB) in one write, as fast
 * as the kernel takes them; built beforehand, so the flood costs this process (the server's) next to nothing.
 */
const flood = (port: number, key: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const state: { started: boolean; frames?: ReturnType<typeof serverFrames>; ms: number } = {
        started: false,
        ms: -1
      }
      const burst = Buffer.alloc(PING.length * FLOOD_FRAMES).fill(PING)
      const tcp = Net.connect(port, "127.0.0.1")
      let received = Buffer.alloc(0)
      let body = -1
      let t0 = 0
      tcp.on("error", () => {})
      tcp.write(
        "GET /api/agent/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
          `Authorization: Bearer ${key}\r\n\r\n`
      )
      tcp.on("data", (chunk) => {
        received = Buffer.concat([received, chunk])
        if (body < 0) {
          const end = received.indexOf("\r\n\r\n")
          if (end < 0) return
          body = end + 4
        }
        if (!state.started && received.includes("\"ready\"", body)) {
          state.started = true
          t0 = performance.now()
          tcp.write(burst)
        }
      })
      tcp.on("close", () => {
        state.ms = t0 === 0 ? -1 : performance.now() - t0
        state.frames = serverFrames(received.subarray(Math.max(body, 0)))
      })
      return { state, tcp }
    }),
    ({ tcp }) => Effect.sync(() => tcp.destroy())
  )

const app = RealtimeApp({ WS_AUTH_TIMEOUT: "2 seconds" })

layer(app, { excludeTestServices: true })("event socket frame limit", (it) => {
  it.scoped("a socket flooding ping frames is closed 4429 quickly; /health stays fast meanwhile", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const address = (yield* HttpServer.HttpServer).address as HttpServer.TcpAddress
      // warm: the key's principal and the health check's first statement
      expect((yield* rawRequest("GET", "/health")).status).toBe(200)
      const { state } = yield* flood(address.port, human.api_key)
      yield* waitFor("the flood to start", () => state.started || undefined)
      // /health, called again and again while the flood goes on (until the flooder's socket is closed)
      const timings: Array<number> = []
      while (state.frames === undefined && timings.length < 200) {
        const start = performance.now()
        expect((yield* rawRequest("GET", "/health")).status).toBe(200)
        timings.push(performance.now() - start)
        yield* realSleep(10)
      }
      const { close, texts } = yield* waitFor("the flooder's socket to close", () => state.frames)
      expect(close).toBe(4429)
      // closed within a second of the flood's start (the close frame, then the socket a moment later)
      expect(state.ms).toBeLessThan(1_500)
      // a burst's worth answered (60, and what refilled meanwhile); the rest of the 200,000 never read
      const pongs = texts.filter((t) => t === "{\"type\":\"pong\"}").length
      expect(pongs).toBeGreaterThanOrEqual(60)
      expect(pongs).toBeLessThan(100)
      expect(timings.length).toBeGreaterThan(0)
      expect(Math.max(...timings)).toBeLessThan(200)
      // the account is not locked out: a new socket goes live
      const again = yield* openSocket({ key: human.api_key })
      yield* again.ready()
    }))

  it.scoped("WebSocket-level pings count too", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const socket = yield* openSocket({ key: human.api_key })
      yield* socket.ready()
      for (let i = 0; i < 200; i++) socket.ws.ping()
      const closed = yield* socket.waitClosed(5_000)
      expect(closed.code).toBe(4429)
    }))

  it.scoped("a client pinging at a sane pace (and a burst of 30) is answered every time and stays open", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const socket = yield* openSocket({ key: human.api_key })
      yield* socket.ready()
      for (let i = 0; i < 30; i++) socket.send({ type: "ping" })
      for (let i = 0; i < 15; i++) {
        yield* realSleep(100)
        socket.send({ type: "ping" })
      }
      const pongs = yield* waitFor("45 pongs", () => {
        const got = socket.frames.filter((f) => f.type === "pong")
        return got.length >= 45 ? got : undefined
      })
      expect(pongs).toHaveLength(45)
      expect(socket.closed).toBeUndefined()
    }))
})
