// `npm run soak -- --minutes N [--agents N] [--rate N] [--png FILE]`: a soak run. One server as `npm start` runs it
// (the bundle and its node flags; embedded, or BENCH_DATABASE_URL), N simulated agents (default 1,000) that each
// hold a WebSocket, and a steady mix of what agents do at --rate requests/s (default 25, what the embedded
// database absorbs on a loaded 2-core machine; 100 drove it to 503s within a minute): heartbeats, task
// updates, posts, DMs, Gem transfers and feed reads. Every 10 s it records the server's resident memory, the
// window's p50/p99 latency, errors, open sockets and the load average; the result is printed as a table and drawn
// to bench/results/soak.png (or --png: memory and p99 over time), with the numbers in soak.csv beside it.
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import WebSocket from "ws"
import { drawSoak } from "./soak-chart.js"
import { freePort, startNode, waitFor } from "./support.js"

const argText = (name: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const arg = (name: string, fallback: number) => Number(argText(name) ?? fallback)

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
  readonly errorsByKind: Map<string, number>
}

/** A failed call as one line: fetch's "fetch failed" says why only in its cause (ECONNRESET, ECONNREFUSED …). */
const describe = (e: unknown) => {
  if (!(e instanceof Error)) return String(e)
  const cause = e.cause as { code?: string; message?: string } | undefined
  return cause ? `${e.message} (${cause.code ?? cause.message})` : e.message
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
  const rate = arg("rate", 25)
  const [port, walletPort] = await Promise.all([freePort(), freePort()])
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-soak-"))
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    WALLET_PORT: String(walletPort),
    HOST: "127.0.0.1",
    DNS_PORT: "0",
    RATE_LIMIT_PER_MINUTE: "1000000",
    // every simulated agent comes from 127.0.0.1: 1,000 sockets plus the HTTP connections would pass the
    // per-address cap (1,000 by default, meant for one abusive client), which resets the connections beyond it
    HTTP_MAX_CONNECTIONS_PER_IP: "100000",
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {})
  }
  const base = `http://127.0.0.1:${port}`
  const wallet = `http://127.0.0.1:${walletPort}`
  const root = Path.resolve(import.meta.dirname, "..")
  const build = spawnSync(process.execPath, ["scripts/build-server.mjs", "--if-stale"], { cwd: root, stdio: "inherit" })
  if (build.status !== 0) throw new Error("the server bundle did not build")
  // the node arguments of package.json's start script, as bench/memory.ts reads them
  const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as { scripts: { start: string } }
  const server = startNode(pkg.scripts.start.replace(/^exec node\s+/, "").split(/\s+/), {
    ...process.env,
    NODE_OPTIONS: "",
    ...env
  }, root)
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
    let open = 0
    let closed = 0
    // the sockets connect 50 at a time, each batch awaited: 1,000 upgrades at once are 1,000 key lookups at once,
    // which a loaded embedded database answers late enough to fail many of them
    const connect = (agent: Agent) =>
      new Promise<void>((resolve) => {
        const ws = new WebSocket(`${base.replace("http", "ws")}/api/agent/ws`, {
          headers: { authorization: `Bearer ${agent.key}` }
        })
        ws.on("message", () => events++)
        ws.on("open", () => {
          open++
          resolve()
        })
        ws.on("close", () => {
          closed++
          resolve()
        })
        ws.on("error", () => {})
        sockets.push(ws)
      })
    for (let i = 0; i < agents.length; i += 50) await Promise.all(agents.slice(i, i + 50).map(connect))
    console.log(
      `soak: ${agentCount} agents set up in ${((Date.now() - started) / 1000).toFixed(0)} s, ${
        open - closed
      } sockets open; ${rate} req/s`
    )

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
        (a) => {
          const to = pick(agents)
          return to === a
            ? Promise.resolve()
            : call("POST", `${base}/api/agent/message`, a.key, { recipient_handle: to.handle, content: "hi" })
        }
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

    const windows: Array<
      Window & { rss: number; p50: number; p99: number; count: number; sockets: number; load: number }
    > = []
    const fresh = (at: number): Window => ({ at, latencies: [], errors: 0, byKind: new Map(), errorsByKind: new Map() })
    let current = fresh(0)
    const firstErrors = new Map<string, string>()
    const t0 = Date.now()
    const end = t0 + minutes * 60_000
    const inflight = new Set<Promise<void>>()
    const takeSample = () => {
      const sorted = current.latencies.sort((a, b) => a - b)
      const w = {
        ...current,
        rss: rssMb(server.child.pid),
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        count: sorted.length,
        sockets: open - closed,
        load: Os.loadavg()[0]!
      }
      windows.push(w)
      console.log(
        `  ${(w.at / 1000).toFixed(0).padStart(5)} s  ${String(w.count).padStart(5)} req  p50 ${
          w.p50.toFixed(0)
        } ms  ` +
          `p99 ${w.p99.toFixed(0)} ms  errors ${w.errors}${
            w.errors ? ` ${JSON.stringify(Object.fromEntries(w.errorsByKind))}` : ""
          }  rss ${w.rss} MB  sockets ${w.sockets}  frames ${events}  load ${w.load.toFixed(1)}`
      )
      current = fresh(Date.now() - t0)
    }
    const sample = setInterval(takeSample, 10_000)
    // open-loop arrivals at the set rate, on an absolute schedule (timers run late on a loaded machine and would
    // lower the rate): a slow server meets more requests at once, as it would in production
    // an answer counts in the window it arrives in (the window it was sent in may be summed up already: counting
    // there lost the slow tail, the requests a p99 is about)
    let sent = 0
    for (; Date.now() < end; sent++) {
      const [name, , act] = chooseKind()
      const agent = pick(agents)
      const began = performance.now()
      const p = act(agent).then(
        () => void current.latencies.push(performance.now() - began),
        (e) => {
          current.errors++
          current.errorsByKind.set(name, (current.errorsByKind.get(name) ?? 0) + 1)
          if (!firstErrors.has(name)) firstErrors.set(name, describe(e))
        }
      ).finally(() => inflight.delete(p))
      current.byKind.set(name, (current.byKind.get(name) ?? 0) + 1)
      inflight.add(p)
      const due = t0 + ((sent + 1) * 1000) / rate - Date.now()
      if (due > 0) await new Promise((r) => setTimeout(r, due))
    }
    await Promise.all(inflight)
    clearInterval(sample)
    if (current.latencies.length + current.errors > 0) takeSample()

    const dir = Path.resolve("bench/results")
    Fs.mkdirSync(dir, { recursive: true })
    Fs.writeFileSync(
      Path.join(dir, "soak.csv"),
      "seconds,requests,p50_ms,p99_ms,errors,rss_mb,sockets,load1\n" +
        windows.map((w) =>
          `${(w.at / 1000).toFixed(0)},${w.count},${w.p50.toFixed(1)},${w.p99.toFixed(1)},${w.errors},${w.rss},` +
          `${w.sockets},${w.load.toFixed(2)}`
        )
          .join("\n") +
        "\n"
    )
    const png = Path.resolve(argText("png") ?? Path.join(dir, "soak.png"))
    Fs.writeFileSync(
      png,
      drawSoak(windows.map((w) => ({ seconds: w.at / 1000, p99: w.p99, rss: w.rss, load: w.load })))
    )
    const errors = windows.reduce((s, w) => s + w.errors, 0)
    const rss = windows.map((w) => w.rss)
    // the trend of resident memory over the second half (after warm-up), by least squares, in MB per minute
    const late = windows.slice(Math.floor(windows.length / 2))
    const mean = (xs: ReadonlyArray<number>) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length)
    const [mt, mr] = [mean(late.map((w) => w.at / 60_000)), mean(late.map((w) => w.rss))]
    const slope = late.reduce((s, w) => s + (w.at / 60_000 - mt) * (w.rss - mr), 0) /
      Math.max(1e-9, late.reduce((s, w) => s + (w.at / 60_000 - mt) ** 2, 0))
    const first = windows[0]!
    const last = windows[windows.length - 1]!
    console.log(
      `soak: ${minutes} min, ${agentCount} agents, ${rate} req/s (${
        Math.round(minutes * 60 * rate)
      } due, ${sent} sent); ${windows.reduce((s, w) => s + w.count, 0)} requests answered, ${errors} errors` +
        (firstErrors.size ? ` (first of each: ${JSON.stringify(Object.fromEntries(firstErrors))})` : "") +
        `; p99 ${first.p99.toFixed(0)} ms in the first window, ${last.p99.toFixed(0)} ms in the last, worst ${
          Math.max(...windows.map((w) => w.p99)).toFixed(0)
        } ms; rss ${rss[0]} MB at start, peak ${Math.max(...rss)}, ${rss[rss.length - 1]} at the end, ` +
        `second-half trend ${slope >= 0 ? "+" : ""}${slope.toFixed(2)} MB/min; sockets open ${last.sockets} of ` +
        `${agentCount} at the end, ${events} frames; load ${mean(windows.map((w) => w.load)).toFixed(1)} on average; ` +
        `chart ${Path.relative(process.cwd(), png)}`
    )
    if (errors > 0) process.exitCode = 1
  } finally {
    for (const ws of sockets) ws.terminate()
    await server.stop()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
