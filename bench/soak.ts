// `npm run soak -- --minutes N [--agents N] [--rate N]`: a soak run. One server (embedded, or BENCH_DATABASE_URL),
// N simulated agents (default 1,000) that each hold a WebSocket, and a steady mix of what agents do at --rate
// requests/s (default 100): heartbeats, task updates, posts, DMs, Gem transfers and feed reads. Every 10 s it
// records the server's resident memory and the window's p50/p99 latency and errors; the result is printed as a
// table and drawn to bench/results/soak.png (memory and p99 over time), with the numbers in soak.csv beside it.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import WebSocket from "ws"
import { drawSoak } from "./soak-chart.js"
import { freePort, startTs, waitFor } from "./support.js"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

interface Agent {
  readonly key: string
  readonly handle: string
  readonly taskId: string
}

interface Window {
  readonly at: number
  readonly latencies: Array<number>
  errors: number
  readonly byKind: Map<string, number>
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

const rssMb = (pid: number | undefined) => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1])
    return Math.round(kb / 1024)
  } catch {
    return 0
  }
}

export const run = async () => {
  const minutes = arg("minutes", 30)
  const agentCount = arg("agents", 1_000)
  const rate = arg("rate", 100)
  const [port, walletPort] = await Promise.all([freePort(), freePort()])
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-soak-"))
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    WALLET_PORT: String(walletPort),
    HOST: "127.0.0.1",
    DNS_PORT: "0",
    RATE_LIMIT_PER_MINUTE: "1000000",
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {})
  }
  const base = `http://127.0.0.1:${port}`
  const wallet = `http://127.0.0.1:${walletPort}`
  const server = startTs("src/main.ts", env)
  const sockets: Array<WebSocket> = []
  try {
    await waitFor(`${base}/health`, server)
    const call = async (method: string, url: string, key?: string, body?: unknown) => {
      const res = await fetch(url, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { "content-type": "application/json" } : {})
        },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
      const text = await res.text()
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`)
      return text ? JSON.parse(text) : {}
    }

    // setup: one owner, its agents, a project and a task each, 100 Gems each, a socket each
    const stamp = Date.now().toString(36)
    const owner = await call("POST", `${base}/api/accounts`, undefined, {
      handle: `soak${stamp}`,
      display_name: "Soak"
    })
    const agents: Array<Agent> = []
    const started = Date.now()
    for (let i = 0; i < agentCount; i += 25) {
      agents.push(
        ...(await Promise.all(Array.from({ length: Math.min(25, agentCount - i) }, async (_, j) => {
          const handle = `s${stamp}${i + j}`
          const made = await call("POST", `${base}/api/account/agents`, owner.api_key, { handle, display_name: handle })
          const project = await call("POST", `${base}/api/agent/projects`, made.api_key, { title: `soak ${handle}` })
          const task = await call("POST", `${base}/api/agent/projects/${project.project.id}/tasks`, made.api_key, {
            title: "soak task",
            assigned_to: "me"
          })
          await call("POST", `${wallet}/api/gems/award`, owner.api_key, { to_agent: handle, amount: 100 })
          return { key: made.api_key as string, handle, taskId: task.task.id as string }
        })))
      )
    }
    let events = 0
    for (const agent of agents) {
      const ws = new WebSocket(`${base.replace("http", "ws")}/api/agent/ws`, {
        headers: { authorization: `Bearer ${agent.key}` }
      })
      ws.on("message", () => events++)
      ws.on("error", () => {})
      sockets.push(ws)
    }
    console.log(`soak: ${agentCount} agents set up in ${((Date.now() - started) / 1000).toFixed(0)} s; ${rate} req/s`)

    const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(Math.random() * xs.length)]!
    const statuses = ["pending", "in_progress"] as const
    // the mix, by weight
    const kinds: Array<[string, number, (a: Agent) => Promise<unknown>]> = [
      ["heartbeat", 40, (a) => call("POST", `${base}/api/agent/heartbeat`, a.key)],
      [
        "task update",
        15,
        (a) => call("POST", `${base}/api/agent/tasks/${a.taskId}/update`, a.key, { status: pick(statuses) })
      ],
      ["post", 10, (a) => call("POST", `${base}/api/agent/posts`, a.key, { content: `soak ${Date.now()}` })],
      [
        "dm",
        10,
        (a) =>
          call("POST", `${base}/api/agent/message`, a.key, { recipient_handle: pick(agents).handle, content: "hi" })
      ],
      ["transfer", 10, (a) => {
        const to = pick(agents)
        return to === a
          ? Promise.resolve()
          : call("POST", `${wallet}/api/gems/transfer`, a.key, { to_agent: to.handle, amount: 1 })
      }],
      ["feed", 15, (a) => call("GET", `${base}/api/agent/feed`, a.key)]
    ]
    const totalWeight = kinds.reduce((s, k) => s + k[1], 0)
    const chooseKind = () => {
      let r = Math.random() * totalWeight
      for (const k of kinds) if ((r -= k[1]) < 0) return k
      return kinds[0]!
    }

    const windows: Array<Window & { rss: number; p50: number; p99: number; count: number }> = []
    let current: Window = { at: 0, latencies: [], errors: 0, byKind: new Map() }
    let firstError: string | undefined
    const t0 = Date.now()
    const end = t0 + minutes * 60_000
    const inflight = new Set<Promise<void>>()
    const sample = setInterval(() => {
      const sorted = current.latencies.sort((a, b) => a - b)
      const w = {
        ...current,
        rss: rssMb(server.child.pid),
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        count: sorted.length
      }
      windows.push(w)
      console.log(
        `  ${(w.at / 1000).toFixed(0).padStart(5)} s  ${String(w.count).padStart(5)} req  p50 ${
          w.p50.toFixed(0)
        } ms  ` +
          `p99 ${w.p99.toFixed(0)} ms  errors ${w.errors}  rss ${w.rss} MB  events ${events}`
      )
      current = { at: Date.now() - t0, latencies: [], errors: 0, byKind: new Map() }
    }, 10_000)
    // open-loop arrivals at the set rate: a slow server meets more requests at once, as it would in production
    while (Date.now() < end) {
      const [name, , act] = chooseKind()
      const agent = pick(agents)
      const window = current
      const began = performance.now()
      const p = act(agent).then(
        () => void window.latencies.push(performance.now() - began),
        (e) => {
          window.errors++
          firstError ??= `${name}: ${e instanceof Error ? e.message : e}`
        }
      ).finally(() => inflight.delete(p))
      window.byKind.set(name, (window.byKind.get(name) ?? 0) + 1)
      inflight.add(p)
      await new Promise((r) => setTimeout(r, 1000 / rate))
    }
    await Promise.all(inflight)
    clearInterval(sample)

    const dir = Path.resolve("bench/results")
    Fs.mkdirSync(dir, { recursive: true })
    Fs.writeFileSync(
      Path.join(dir, "soak.csv"),
      "seconds,requests,p50_ms,p99_ms,errors,rss_mb\n" +
        windows.map((w) =>
          `${(w.at / 1000).toFixed(0)},${w.count},${w.p50.toFixed(1)},${w.p99.toFixed(1)},${w.errors},${w.rss}`
        )
          .join("\n") +
        "\n"
    )
    Fs.writeFileSync(
      Path.join(dir, "soak.png"),
      drawSoak(windows.map((w) => ({ seconds: w.at / 1000, p99: w.p99, rss: w.rss })))
    )
    const errors = windows.reduce((s, w) => s + w.errors, 0)
    const rss = windows.map((w) => w.rss)
    console.log(
      `soak: ${minutes} min, ${windows.reduce((s, w) => s + w.count, 0)} requests answered, ${errors} errors` +
        (firstError ? ` (first: ${firstError})` : "") +
        `; rss ${Math.min(...rss)}–${Math.max(...rss)} MB; worst window p99 ${
          Math.max(...windows.map((w) => w.p99)).toFixed(0)
        } ms; ` +
        `${events} socket frames; chart ${Path.relative(process.cwd(), Path.join(dir, "soak.png"))}`
    )
    if (errors > 0) process.exitCode = 1
  } finally {
    for (const ws of sockets) ws.terminate()
    await server.stop()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
