// `npm run bench -- writes`: PATCH /api/agent/profile under open-loop load: requests are sent at a fixed offered
// rate (BENCH_RATE, default 1,000/s) whether or not earlier ones were answered, each agent's key in turn
// (BENCH_AGENTS, default 500), and the bench reports completed/s, p50/p99 latency (from each request's scheduled
// send time, so a server that falls behind is charged for the queue it builds) and errors, with the server's CPU per
// completed write, the server run with `npm start`'s V8 heap flags. Goal: ≥ 600 completed/s at 1,000/s offered,
// embedded database. BENCH_BASE=<git ref> runs that commit's server too, in alternating slices; BENCH_DATABASE_URL
// (a fresh database) runs this one on a PostgreSQL server instead; GROUP_COMMIT=false is passed through to the
// server under test.
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { checkoutOf, cpuMs, freePort, npmStartFlags, type Proc, report, seconds, startTs, waitFor } from "./support.js"

const AGENTS = Number(process.env.BENCH_AGENTS ?? 500)
const RATE = Number(process.env.BENCH_RATE ?? 1_000)
// requests still unanswered beyond this are not sent (counted as errors): the generator must not drown itself
const MAX_IN_FLIGHT = Number(process.env.BENCH_MAX_IN_FLIGHT ?? 4_000)
// keep-alive sockets at most: the rest wait in the client (their wait is charged to latency, from the due time);
// a new socket per request past this overflowed the listen backlog (SYN cookies, resets)
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 128)

const createAgents = async (base: string) => {
  const stamp = Date.now().toString(36)
  const owner = (await (await fetch(`${base}/api/accounts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ handle: `benchw${stamp}`, display_name: "Bench owner" })
  })).json()) as { api_key: string }
  const keys: Array<string> = []
  for (let i = 0; i < AGENTS; i += 25) {
    keys.push(
      ...await Promise.all(Array.from({ length: Math.min(25, AGENTS - i) }, async (_, j) => {
        const r = await fetch(`${base}/api/account/agents`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${owner.api_key}` },
          body: JSON.stringify({ handle: `w${stamp}-${i + j}`, display_name: `agent ${i + j}` })
        })
        if (!r.ok) throw new Error(`create agent: ${r.status} ${await r.text()}`)
        return ((await r.json()) as { api_key: string }).api_key
      }))
    )
  }
  return keys
}

interface OpenLoopResult {
  readonly offered: number
  readonly completed: number
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly statuses: Record<string, number>
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

/**
 * Open-loop load: request i is due at start + i / rate and is sent then (on one of BENCH_SOCKETS keep-alive sockets, queued in the client while all are busy)
 * however many are still unanswered. Completed/s counts 2xx answers that arrive within the window.
 */
const openLoop = (port: number, keys: ReadonlyArray<string>, rate: number, secs: number, from: { next: number }) =>
  new Promise<OpenLoopResult>((resolve) => {
    const agent = new Http.Agent({ keepAlive: true, maxSockets: SOCKETS })
    const start = performance.now()
    const end = start + secs * 1000
    const latencies: Array<number> = []
    const statuses: Record<string, number> = {}
    let sent = 0
    let inFlight = 0
    let errors = 0
    let completed = 0
    const count = (s: string) => (statuses[s] = (statuses[s] ?? 0) + 1)
    const send = (due: number) => {
      if (inFlight >= MAX_IN_FLIGHT) {
        errors++
        count("dropped")
        return
      }
      const n = from.next++
      const body = JSON.stringify({ bio: `bench write ${n}` })
      inFlight++
      const req = Http.request({
        agent,
        host: "127.0.0.1",
        port,
        method: "PATCH",
        path: "/api/agent/profile",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          authorization: `Bearer ${keys[n % keys.length]}`
        }
      }, (res) => {
        res.resume()
        res.on("end", () => {
          inFlight--
          const now = performance.now()
          count(String(res.statusCode))
          if (res.statusCode === 200) {
            if (now <= end) completed++
            latencies.push(now - due)
          } else errors++
        })
      })
      req.on("error", (e) => {
        inFlight--
        errors++
        count(e.message)
      })
      req.end(body)
    }
    const tick = () => {
      const now = performance.now()
      const due = Math.min(Math.floor((now - start) * rate / 1000), Math.floor(secs * rate))
      while (sent < due) send(start + (sent++ * 1000) / rate)
      if (now < end) return void setTimeout(tick, 1)
      // the window is over: wait (a while) for the stragglers' latencies, then report
      const until = now + 10_000
      const drain = () => {
        if (inFlight > 0 && performance.now() < until) return void setTimeout(drain, 20)
        agent.destroy()
        const sorted = latencies.sort((a, b) => a - b)
        resolve({
          offered: sent,
          completed,
          perSecond: completed / secs,
          p50: percentile(sorted, 0.5),
          p99: percentile(sorted, 0.99),
          errors: errors + inFlight,
          statuses
        })
      }
      drain()
    }
    tick()
  })

const startServer = async (label: string, database: string | undefined, cwd?: string) => {
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), `shoal-bench-writes-${label}-`))
  const port = await freePort()
  const proc = startTs(
    "src/main.ts",
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      WALLET_PORT: String(await freePort()),
      HOST: "127.0.0.1",
      RATE_LIMIT_PER_MINUTE: String(1e9),
      DNS_PORT: "0",
      DATABASE_URL: database ?? ""
    },
    [],
    cwd,
    // V8's heap as `npm start` sizes it: its small young generation costs this path a fifth more CPU per write
    // than V8's defaults (more of each request's objects live to be promoted; bench/README.md, "writes")
    npmStartFlags
  )
  await waitFor(`http://127.0.0.1:${port}/health`, proc)
  const keys = await createAgents(`http://127.0.0.1:${port}`)
  return { label, port, proc, keys, dataDir, next: { next: 0 } }
}

type Server = Awaited<ReturnType<typeof startServer>> & { readonly proc: Proc }

const loadAvg = () => Os.loadavg().map((l) => l.toFixed(1)).join(" ")

export const run = async () => {
  const duration = seconds()
  const database = process.env.BENCH_DATABASE_URL || undefined
  const baseRef = process.env.BENCH_BASE
  const checkout = baseRef ? checkoutOf(baseRef) : undefined
  const servers: Array<Server> = []
  try {
    servers.push(await startServer("target", database))
    if (checkout) servers.push(await startServer("base", database, checkout.dir))
    // warm: every agent's key into the cache and a first write each, then a short pause
    for (const s of servers) await openLoop(s.port, s.keys, Math.min(RATE, 500), Math.max(2, AGENTS / 250), s.next)
    await new Promise((r) => setTimeout(r, 1_000))
    const slices = Number(process.env.BENCH_SLICES ?? (checkout ? 2 : 1))
    const secs = Math.max(2, Math.round(duration / slices))
    const results = new Map<string, Array<OpenLoopResult & { readonly cpuMs: number; readonly load: string }>>()
    for (let i = 0; i < slices; i++) {
      for (const s of servers) {
        const c0 = cpuMs(s.proc.child.pid)
        const r = await openLoop(s.port, s.keys, RATE, secs, s.next)
        const c1 = cpuMs(s.proc.child.pid)
        results.set(s.label, [...(results.get(s.label) ?? []), {
          ...r,
          cpuMs: c0 !== undefined && c1 !== undefined ? c1 - c0 : NaN,
          load: loadAvg()
        }])
        await new Promise((r) => setTimeout(r, 500))
      }
    }
    console.log(
      `writes bench: PATCH /api/agent/profile, open loop at ${RATE}/s offered, ${AGENTS} agents in turn, ` +
        `${slices} slice(s) of ${secs}s per server, ${database ? "PostgreSQL server" : "embedded PGlite"}` +
        (checkout ? `, base ${baseRef}` : "")
    )
    for (const s of servers) {
      for (const r of results.get(s.label)!) {
        // the slice's CPU (its stragglers' included) over every write answered 200, stragglers too
        const cpu = r.cpuMs * 1000 / Math.max(1, r.statuses["200"] ?? 0)
        console.log(
          `  ${s.label.padEnd(6)} completed ${r.perSecond.toFixed(0).padStart(5)}/s  p50 ${r.p50.toFixed(0)} ms  ` +
            `p99 ${r.p99.toFixed(0)} ms  errors ${r.errors}  server CPU ${cpu.toFixed(0)} µs/write  ` +
            `(load ${r.load})` + (r.errors > 0 ? `  ${JSON.stringify(r.statuses)}` : "")
        )
      }
      if (s.proc.child.exitCode !== null) console.log(`  ${s.label} server exited:\n${s.proc.output().slice(-2000)}`)
    }
    const target = results.get("target")!
    const completed = target.reduce((sum, r) => sum + r.perSecond, 0) / target.length
    report({
      bench: "writes",
      measure: `PATCH /api/agent/profile completed at ${RATE}/s offered (${database ? "server" : "embedded"})`,
      value: `${completed.toFixed(0)}/s`,
      figure: Math.round(completed),
      goal: { atLeast: 600 },
      unit: "/s"
    })
  } finally {
    await Promise.all(servers.map((s) => s.proc.stop()))
    for (const s of servers) Fs.rmSync(s.dataDir, { recursive: true, force: true })
    checkout?.remove()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
