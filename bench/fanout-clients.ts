// The fan-out bench's clients, in their own process: N WebSockets, commanded over IPC by bench/fanout.ts.
import * as Fs from "node:fs"
import WebSocket from "ws"

const url = process.env.BENCH_URL!
const count = Number(process.env.BENCH_SOCKETS)
const keys: Array<{ key: string }> = process.env.BENCH_KEYS_FILE
  ? JSON.parse(Fs.readFileSync(process.env.BENCH_KEYS_FILE, "utf8"))
  : []
const now = () => performance.timeOrigin + performance.now()
const send = (m: unknown) => process.send!(m)

const sockets: Array<WebSocket> = []
let ready = 0
let closed = 0
let marker: string | undefined
let got = 0
let first = Infinity
let last = 0
const seen = new Uint8Array(count)
let latencyUpTo = 0
/** sockets asked for so far: "connect" opens the ones up to `upTo` (all by default) */
let target = 0
let presence = 0
const arrivals: Array<Array<number>> = []

const onMessage = (i: number, data: WebSocket.RawData) => {
  const text = data.toString()
  if (text.startsWith("{\"type\":\"ready\"")) {
    if (++ready === target) send({ type: "ready" })
    return
  }
  if (marker !== undefined && seen[i] === 0 && text.includes(marker)) {
    const t = now()
    seen[i] = 1
    if (t < first) first = t
    if (t > last) last = t
    if (++got === count) send({ type: "fanout", first, last })
    return
  }
  if (i < latencyUpTo && text.includes("\"profile.updated\"")) arrivals[i]!.push(now())
  // each agent is told of its own connection: once all have been, the server is done with the connect storm
  else if (text.includes("\"presence.changed\"") && ++presence === target) send({ type: "presence" })
}

const connect = (i: number) =>
  new Promise<void>((resolve) => {
    const headers = keys[i] ? { authorization: `Bearer ${keys[i]!.key}` } : undefined
    const ws = new WebSocket(url, { headers, perMessageDeflate: false })
    sockets[i] = ws
    ws.on("open", () => resolve())
    ws.on("message", (data) => onMessage(i, data))
    ws.on("error", () => resolve())
    ws.on("close", () => {
      closed++
      resolve()
    })
  })

process.on("message", async (m: { type: string; marker?: string; upTo?: number }) => {
  if (m.type === "connect") {
    const from = target
    target = Math.min(count, m.upTo ?? count)
    for (let i = from; i < target; i += 250) {
      await Promise.all(Array.from({ length: Math.min(250, target - i) }, (_, j) => connect(i + j)))
    }
    send({ type: "opened", closed })
  } else if (m.type === "arm") {
    marker = m.marker
    got = 0
    first = Infinity
    last = 0
    seen.fill(0)
  } else if (m.type === "latency") {
    latencyUpTo = m.upTo!
    for (let i = 0; i < latencyUpTo; i++) arrivals[i] = []
  } else if (m.type === "report") {
    send({ type: "arrivals", arrivals: arrivals.slice(0, latencyUpTo), closed, got })
  } else if (m.type === "close") {
    for (const ws of sockets) ws?.terminate()
    process.exit(0)
  }
})
send({ type: "started" })
