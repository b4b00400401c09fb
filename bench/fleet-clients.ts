// The fleet bench's agents, in a process of their own (bench/fleet.ts starts several): each agent holds one
// WebSocket and runs the spec's routine over HTTP, from this process's own loopback source address (BENCH_LOCAL,
// e.g. 127.0.0.3), so no (source, destination) pair runs out of ephemeral ports. Its sockets are spread further, at
// most SOCKETS_PER_ADDRESS to a source address (127.3.0.1, 127.3.1.1 … for 127.0.0.3): the kernel picks a bound
// socket's port at bind(), searching the address's used ports, and past ~7,000 sockets on one address each bind
// cost ~1.5 ms of system time (measured here), which made the clients, not Shoal, the bound at 50,000 and 100,000.
// Commanded over IPC:
//   connect → every agent opens its socket (header auth); "connected" once each has its `ready` frame
//   go { at, seconds } → the routine runs until `at + seconds`: R requests an hour per agent, spread evenly (each
//     agent at its own random phase), the kinds in the routine's order
//   stop → no more requests; report → what was written (writes with their recipients) and what arrived
// "connected" comes once every agent has its `ready` frame or, at the latest, `deadlineMs` after `connect` (then
// with the count still missing): a socket whose upgrade or `ready` frame does not come within 30 s is dropped and
// tried again, so no agent waits for ever and neither does the orchestrator.
// This process's own lag is measured so it can be told apart from the server's: its event loop's delay
// (perf_hooks.monitorEventLoopDelay, overall and per 5 s window) and how late each request left against its due
// time (a client behind its schedule sends late; a request's latency is measured from when it left).
// A socket that closes (a killed node, a balancer that dropped it) reconnects after a short random pause with
// `?after=<the last cursor it saw>` (the `ready` frame's cursor, then each event's), and the time from the close to
// the new `ready` is kept. Each event the bench wrote carries a key (`fx:<writer>:<seq>` in its text; a transfer's
// amount encodes its sender and sequence) so bench/fleet.ts can tell, per recipient, which writes arrived, which
// did not and which came twice.
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Inspector from "node:inspector"
import * as Path from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
import WebSocket from "ws"

export interface PlanAgent {
  readonly id: string
  readonly handle: string
  readonly key: string
  /** the task this agent created (assigned to the next member of its project) */
  readonly task: string
}

export interface Plan {
  readonly agents: ReadonlyArray<PlanAgent>
  /** agent i follows i+1 … i+follows (mod N): its followers are i-1 … i-follows */
  readonly follows: number
  /** members of each project: agents [g*size, (g+1)*size), the last group taking the remainder */
  readonly groupSize: number
  readonly rate: number
}

export type Kind = "heartbeat" | "checkin" | "schedule" | "comment" | "update" | "post" | "dm" | "transfer"

/** The spec's routine of 20 requests an hour, interleaved so any window of it holds a bit of each kind. */
export const ROUTINE: ReadonlyArray<Kind> = [
  "heartbeat",
  "comment",
  "dm",
  "update",
  "post",
  "schedule",
  "comment",
  "heartbeat",
  "dm",
  "update",
  "checkin",
  "comment",
  "transfer",
  "heartbeat",
  "dm",
  "update",
  "post",
  "schedule",
  "dm",
  "heartbeat"
]

/** Agent index → its project's members (the last group takes the remainder, so no project has fewer than 3). */
export const groupOf = (i: number, n: number, size: number) => {
  const groups = Math.max(1, Math.floor(n / size))
  const g = Math.min(Math.floor(i / size), groups - 1)
  const from = g * size
  const to = g === groups - 1 ? n : from + size
  return { from, to }
}
/** the next member of i's project, cyclically: T_i (created by i) is assigned to it */
export const nextInGroup = (i: number, n: number, size: number) => {
  const { from, to } = groupOf(i, n, size)
  return i + 1 < to ? i + 1 : from
}
export const prevInGroup = (i: number, n: number, size: number) => {
  const { from, to } = groupOf(i, n, size)
  return i > from ? i - 1 : to - 1
}

const SOCKETS_PER_ADDRESS = 2_000

const pct = (xs: ReadonlyArray<number>, p: number) => {
  if (xs.length === 0) return NaN
  const s = Float64Array.from(xs).sort()
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!
}

const main = () => {
  const plan = JSON.parse(Fs.readFileSync(process.env.BENCH_PLAN!, "utf8")) as Plan
  const from = Number(process.env.BENCH_FROM)
  const to = Number(process.env.BENCH_TO)
  const localAddress = process.env.BENCH_LOCAL!
  // per agent: its agent API and wallet base (a node directly, or the balancer)
  const targets = JSON.parse(process.env.BENCH_TARGETS!) as Array<{ api: string; wallet: string }>
  const n = plan.agents.length
  const F = plan.follows
  const size = plan.groupSize
  const now = () => Date.now()
  const send = (m: unknown) => process.send!(m)
  const target = (i: number) => targets[i % targets.length]!

  // an idle kept-alive socket is closed here after 4 s, before the server's 5 s keep-alive timeout closes it: a
  // request sent on a socket the server is closing at that moment fails with ECONNRESET (2 of ~100,000 requests at
  // 50,000 agents). node:http's Agent heeds the server's `Keep-Alive: timeout=5` hint only when it has a timeout of
  // its own; as HTTP clients do (undici: 4 s)
  const httpAgent = new Http.Agent({ keepAlive: true, maxSockets: 512, localAddress, timeout: 4_000 })
  const octet = localAddress.split(".")[3]
  const socketAddress = (i: number) => `127.${octet}.${Math.floor((i - from) / SOCKETS_PER_ADDRESS)}.1`

  // ---- measurements
  const latencies: Record<string, Array<number>> = {}
  /** the same, until the orchestrator says a node was killed (`phase`) */
  let latenciesBefore: Record<string, Array<number>> | undefined = latencies
  const latenciesUntilKill: Record<string, Array<number>> = {}
  const errors = { http5xx: 0, http429: 0, http4xx: 0, network: 0, firstError: "" }
  /** the first answers ≥ 500 (and 429), with their bodies: what the server said */
  const errorBodies: Array<string> = []
  /** this process's event-loop delay: overall from `go`, and the p99/max of each 5 s window (ms) */
  // the histogram holds each interval between its 10 ms timer's runs: the delay is what exceeds 10 ms
  const delay = (ns: number) => Math.max(0, ns / 1e6 - 10)
  const loop = monitorEventLoopDelay({ resolution: 10 })
  const loopWindow = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  loopWindow.enable()
  const loopWindows: Array<{ t: number; p99: number; max: number }> = []
  setInterval(() => {
    loopWindows.push({ t: now(), p99: delay(loopWindow.percentile(99)), max: delay(loopWindow.max) })
    loopWindow.reset()
  }, 5_000).unref()
  const loopFigures = () => ({
    p50: delay(loop.percentile(50)),
    p99: delay(loop.percentile(99)),
    max: delay(loop.max),
    windows: loopWindows
  })
  /** how late each request left against its due time (ms) */
  const sendLate: Array<number> = []
  /** when requests that failed (≥ 500, network) or took over a second were sent: to see whether they cluster */
  const troubleAt: Array<number> = []
  /** requests sent before this time (the warm-up) are not measured */
  let measureFrom = 0
  /** writes: key, the recipients it should reach, when it was sent, whether its answer was a success */
  const writes: Array<{ key: string; to: Array<number>; at: number; ok: boolean }> = []
  /** per local agent: key → arrival time (ms); duplicates counted apart */
  const received: Array<Map<string, number>> = []
  let duplicates = 0
  /** requests sent and not yet answered (or failed), and events with a key that arrived: the orchestrator waits for
   * the first to reach 0 and the second to stop growing before it counts what did not arrive */
  let inFlight = 0
  let arrivals = 0
  const duplicateKeys: Array<string> = []
  let duplicateIds = 0
  const eventIds = new Set<string>()
  let cursorRegressions = 0
  let otherEvents = 0
  let drops = 0
  const reconnects: Array<{ agent: number; closedAt: number; readyAt: number }> = []
  let reconnectFailures = 0
  /** why sockets closed: close codes (1006: no close frame, e.g. a reset) and refused upgrades (HTTP status) */
  const closeCodes: Record<string, number> = {}

  // ---- sockets
  interface Conn {
    ws: WebSocket | undefined
    cursor: number | undefined
    ready: boolean
    closedAt: number | undefined
  }
  const conns: Array<Conn> = []
  let stopping = false
  let readyCount = 0
  let connectTarget = 0
  let connectedSent = false

  const keyOf = (text: string) => {
    const m = /fx:(\d+):(\d+)/.exec(text)
    return m === null ? undefined : `${m[1]}:${m[2]}`
  }

  const onEvent = (i: number, frame: any) => {
    const c = conns[i - from]!
    if (typeof frame.cursor === "number") {
      if (c.cursor !== undefined && frame.cursor <= c.cursor) cursorRegressions++
      c.cursor = frame.cursor
    }
    const e = frame.event
    if (eventIds.has(e.id)) duplicateIds++
    else eventIds.add(e.id)
    let key: string | undefined
    if (e.type === "message.received" || e.type === "mention.created" || e.type === "task.comment") {
      key = keyOf(String(e.data.content))
    } else if (e.type === "gems.earned" && e.data.source === "tip") {
      key = `t:${i}:${e.data.amount}`
    }
    if (key === undefined) {
      otherEvents++
      return
    }
    const got = received[i - from]!
    if (got.has(key)) {
      duplicates++
      if (duplicateKeys.length < 20) duplicateKeys.push(`${i}<-${key}`)
    } else {
      got.set(key, now())
      arrivals++
    }
  }

  const open = (i: number, attempt = 0) => {
    const c = conns[i - from]!
    const t = target(i)
    const url = `${t.api.replace("http", "ws")}/api/agent/ws${c.cursor !== undefined ? `?after=${c.cursor}` : ""}`
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${plan.agents[i]!.key}` },
      perMessageDeflate: false,
      localAddress: socketAddress(i),
      handshakeTimeout: 30_000
    })
    c.ws = ws
    c.ready = false
    // no `ready` within 30 s of the attempt: dropped, and the close below tries again
    const readyTimer = setTimeout(() => {
      if (c.ws === ws && !c.ready) {
        closeCodes["no ready in 30 s"] = (closeCodes["no ready in 30 s"] ?? 0) + 1
        ws.terminate()
      }
    }, 30_000)
    ws.on("message", (data) => {
      const text = data.toString()
      if (text.startsWith("{\"type\":\"ready\"")) {
        clearTimeout(readyTimer)
        const frame = JSON.parse(text)
        if (c.cursor === undefined) c.cursor = frame.cursor
        c.ready = true
        if (c.closedAt !== undefined) {
          reconnects.push({ agent: i, closedAt: c.closedAt, readyAt: now() })
          c.closedAt = undefined
        } else if (++readyCount >= connectTarget && !connectedSent) {
          connectedSent = true
          send({ type: "connected", ready: readyCount, missing: 0 })
        }
        return
      }
      if (text.startsWith("{\"type\":\"event\"")) onEvent(i, JSON.parse(text))
    })
    ws.on("error", (e) => {
      if (errors.firstError === "") errors.firstError = `ws: ${e.message}`
    })
    ws.on("unexpected-response", (_req, res) => {
      const code = `HTTP ${res.statusCode}`
      closeCodes[code] = (closeCodes[code] ?? 0) + 1
      res.resume()
      ws.terminate()
    })
    ws.on("close", (code) => {
      clearTimeout(readyTimer)
      if (c.ws !== ws || stopping) return
      closeCodes[String(code)] = (closeCodes[String(code)] ?? 0) + 1
      const wasReady = c.ready
      c.ready = false
      if (wasReady) {
        drops++
        c.closedAt = now()
      } else if (c.closedAt === undefined) {
        // never became ready on the first connect: count it, and keep trying
        reconnectFailures++
        c.closedAt = now()
      } else reconnectFailures++
      // a short random pause (a whole node's agents reconnect at once), longer after each failed try
      setTimeout(() => open(i, attempt + 1), 200 + Math.random() * 800 + Math.min(attempt, 5) * 500)
    })
    ws.on("open", () => (attempt = 0))
  }

  // ---- HTTP
  const request = (i: number, kind: string, method: string, url: string, body: unknown, write?: {
    key: string
    to: Array<number>
  }) => {
    const started = now()
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const record = write === undefined ? undefined : { key: write.key, to: write.to, at: started, ok: false }
    if (record !== undefined) writes.push(record)
    inFlight++
    let settled = false
    const settle = () => {
      if (!settled) {
        settled = true
        inFlight--
      }
    }
    const req = Http.request(url, {
      method,
      agent: httpAgent,
      headers: {
        authorization: `Bearer ${plan.agents[i]!.key}`,
        ...(payload !== undefined
          ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
          : {})
      },
      timeout: 30_000
    }, (res) => {
      const status = res.statusCode ?? 0
      let body = ""
      if ((status >= 500 || status === 429) && errorBodies.length < 5) {
        res.setEncoding("utf8")
        res.on("data", (d: string) => (body += d))
      } else res.resume()
      res.on("end", () => {
        settle()
        const ms = now() - started
        if (body !== "" && errorBodies.length < 5) {
          errorBodies.push(
            `${new Date(started).toISOString()} ${kind} ${method} ${url}: HTTP ${status} ${body.slice(0, 300)}`
          )
        }
        // a request sent during the warm-up counts for errors only
        const measured = started >= measureFrom
        if (status >= 500 || (measured && ms > 1_000)) troubleAt.push(started)
        if (status < 400) {
          if (measured) (latencies[kind] ??= []).push(ms)
          if (measured && latenciesBefore !== undefined) (latenciesUntilKill[kind] ??= []).push(ms)
          if (record !== undefined) record.ok = true
        } else {
          if (status >= 500) errors.http5xx++
          else if (status === 429) errors.http429++
          else errors.http4xx++
          if (errors.firstError === "") errors.firstError = `${kind} ${method} ${url}: HTTP ${status}`
        }
      })
    })
    req.on("timeout", () => req.destroy(new Error("timeout after 30 s")))
    req.on("error", (e) => {
      settle()
      errors.network++
      troubleAt.push(started)
      if (errors.firstError === "") errors.firstError = `${kind}: ${e.message}`
    })
    req.end(payload)
  }

  const seq: Array<number> = []
  const transfers: Array<number> = []
  const handle = (j: number) => plan.agents[((j % n) + n) % n]!.handle
  const mod = (j: number) => ((j % n) + n) % n

  const act = (i: number, kind: Kind, k: number) => {
    const t = target(i)
    const api = t.api
    const me = i - from
    const s = seq[me] = (seq[me] ?? 0) + 1
    const key = `${i}:${s}`
    const token = `fx:${key}`
    switch (kind) {
      case "heartbeat":
        return request(i, kind, "POST", `${api}/api/agent/heartbeat`, {})
      case "checkin":
        return request(i, kind, "POST", `${api}/api/waves/checkin`, {})
      case "schedule":
        return request(i, kind, "GET", `${api}/api/agent/schedule`, undefined)
      case "update": {
        // the task assigned to me (created by the previous member of my project): its status, back and forth
        const task = plan.agents[prevInGroup(i, n, size)]!.task
        return request(i, kind, "POST", `${api}/api/agent/tasks/${task}/update`, {
          status: k % 2 === 0 ? "review" : "in_progress"
        })
      }
      case "comment": {
        // on the next member's task: its creator (next) and assignee (the one after) hear of it
        const creator = nextInGroup(i, n, size)
        const assignee = nextInGroup(creator, n, size)
        return request(
          i,
          kind,
          "POST",
          `${api}/api/agent/tasks/${plan.agents[creator]!.task}/comment`,
          { content: `progress note ${token}` },
          { key, to: [...new Set([creator, assignee])].filter((x) => x !== i) }
        )
      }
      case "post": {
        // mentions every follower: each gets mention.created
        const followers = Array.from({ length: F }, (_, j) => mod(i - 1 - j)).filter((x) => x !== i)
        const unique = [...new Set(followers)]
        return request(
          i,
          kind,
          "POST",
          `${api}/api/agent/posts`,
          { content: `${unique.map((f) => `@${handle(f)}`).join(" ")} shipped a thing ${token}` },
          { key, to: unique }
        )
      }
      case "dm": {
        // to a follower (it follows me: delivered at once), a different one each time
        const to = mod(i - 1 - (s % F))
        return request(
          i,
          kind,
          "POST",
          `${api}/api/agent/message`,
          { recipient_handle: handle(to), content: `hello ${token}` },
          { key, to: [to] }
        )
      }
      case "transfer": {
        // to a follower; the amount names sender and sequence for that recipient: slot (1…F) + F × this agent's
        // transfer count
        const slot = 1 + (transfers[me] ?? 0) % F
        const count = transfers[me] = (transfers[me] ?? 0) + 1
        const to = mod(i - slot)
        const amount = slot + F * count
        return request(
          i,
          kind,
          "POST",
          `${t.wallet}/api/gems/transfer`,
          { to_agent: handle(to), amount, note: `tip ${token}` },
          { key: `t:${to}:${amount}`, to: [to] }
        )
      }
    }
  }

  // ---- the routine: R an hour per agent, each at its own phase; the firing order is periodic, so the agents are
  // sorted by phase once and a pointer walks them cycle after cycle
  let timer: NodeJS.Timeout | undefined
  const go = (at: number, seconds: number) => {
    const interval = 3_600_000 / plan.rate
    const count = to - from
    const phase = Array.from({ length: count }, () => Math.random() * interval)
    const start = Array.from({ length: count }, () => Math.floor(Math.random() * ROUTINE.length))
    const order = Array.from({ length: count }, (_, j) => j).sort((a, b) => phase[a]! - phase[b]!)
    const end = at + seconds * 1000
    let p = 0
    let cycle = 0
    const tick = () => {
      const t = now()
      while (t >= at) {
        const j = order[p]!
        const due = at + phase[j]! + cycle * interval
        if (due > t || due >= end) break
        sendLate.push(t - due)
        act(from + j, ROUTINE[(start[j]! + cycle) % ROUTINE.length]!, cycle)
        if (++p === count) {
          p = 0
          cycle++
        }
      }
      if (t < end) timer = setTimeout(tick, 20)
    }
    tick()
  }

  // BENCH_CLIENT_PROFILE=<dir>: a V8 CPU profile of this process from `connect` to `report`, written there
  const profileDir = process.env.BENCH_CLIENT_PROFILE
  const profiler = profileDir === undefined ? undefined : new Inspector.Session()
  const profiling = (method: string) =>
    new Promise<any>((resolve, reject) =>
      profiler!.post(method, (error, result) => (error === null ? resolve(result) : reject(error)))
    )
  const startProfile = () => {
    if (profiler === undefined) return
    profiler.connect()
    void profiling("Profiler.enable").then(() => profiling("Profiler.start"))
  }
  const writeProfile = async () => {
    if (profiler === undefined) return
    const { profile } = await profiling("Profiler.stop")
    Fs.mkdirSync(profileDir!, { recursive: true })
    Fs.writeFileSync(Path.join(profileDir!, `client-${from}-${process.pid}.cpuprofile`), JSON.stringify(profile))
  }

  process.on(
    "message",
    async (m: { type: string; at?: number; seconds?: number; measureFrom?: number; deadlineMs?: number }) => {
      if (m.type === "report") await writeProfile()
      if (m.type === "connect") {
        startProfile()
        connectTarget = to - from
        setTimeout(() => {
          if (connectedSent) return
          connectedSent = true
          send({ type: "connected", ready: readyCount, missing: connectTarget - readyCount })
        }, m.deadlineMs ?? 600_000).unref()
        for (let i = from; i < to; i++) {
          conns.push({ ws: undefined, cursor: undefined, ready: false, closedAt: undefined })
          received.push(new Map())
        }
        // in waves of 200, each wave once the previous has its `ready` frames or 30 s have passed: at most ~200 upgrades
        // in flight, so a slow server's listen queue does not fill with connects its clients have given up on (each
        // still costs the server a read and a key check when it gets to it)
        let next = from
        const wave = () => {
          const upTo = Math.min(to, next + 200)
          for (; next < upTo; next++) open(next)
          if (next < to) {
            const waitFrom = now()
            const wait = () =>
              readyCount >= next - from - 10 || now() - waitFrom > 30_000 ? wave() : setTimeout(wait, 10)
            wait()
          }
        }
        wave()
      } else if (m.type === "go") {
        loop.reset()
        loopWindows.length = 0
        measureFrom = m.measureFrom ?? m.at!
        go(m.at!, m.seconds!)
      } else if (m.type === "phase") {
        latenciesBefore = undefined
      } else if (m.type === "stop") {
        if (timer !== undefined) clearTimeout(timer)
        send({ type: "stopped" })
      } else if (m.type === "status") {
        send({
          type: "status",
          ready: conns.filter((c) => c.ready).length,
          down: conns.filter((c) => !c.ready).length,
          drops,
          reconnects: reconnects.length,
          inFlight,
          arrivals,
          loop: loopFigures()
        })
      } else if (m.type === "report") {
        send({
          type: "report",
          latencies,
          latenciesBefore: latenciesUntilKill,
          troubleAt,
          errors,
          errorBodies,
          loop: loopFigures(),
          sendLate: {
            count: sendLate.length,
            p50: pct(sendLate, 50),
            p99: pct(sendLate, 99),
            max: pct(sendLate, 100),
            over100ms: sendLate.filter((x) => x > 100).length
          },
          writes,
          received: received.map((got, j) => ({ agent: from + j, got: [...got] })),
          duplicates,
          duplicateKeys,
          duplicateIds,
          cursorRegressions,
          otherEvents,
          drops,
          reconnects,
          reconnectFailures,
          closeCodes,
          notReady: conns.filter((c) => !c.ready).map((_, j) => from + j).length
        })
      } else if (m.type === "close") {
        stopping = true
        for (const c of conns) c.ws?.terminate()
        httpAgent.destroy()
        setTimeout(() => process.exit(0), 200)
      }
    }
  )
  send({ type: "started" })
}

if (process.env.BENCH_PLAN !== undefined) main()
