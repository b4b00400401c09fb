// `npm run bench -- heartbeat`: heartbeats/second (POST /api/agent/heartbeat with an empty body) from BENCH_AGENTS
// agents (default 10,000), each request with the next agent's key, against an Effect HttpApi hello-world, same load
// tool, same run. Goal (issue 42): the server's CPU per heartbeat ≤ 2× the hello-world's per request; req/s is
// printed beside it. A heartbeat is a cached key check and an in-memory touch; last-seen times are
// written in batches (HEARTBEAT_FLUSH_INTERVAL), so the database is not on the request's path.
import autocannon from "autocannon"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { cpuMs, freePort, load, report, seconds, startTs, waitFor } from "./support.js"

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000)

const createAgents = async (base: string) => {
  const stamp = Date.now().toString(36)
  const res = await fetch(`${base}/api/accounts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ handle: `benchhb${stamp}`, display_name: "Bench owner" })
  })
  const owner = (await res.json()) as { api_key: string }
  const keys: Array<string> = []
  for (let i = 0; i < AGENTS; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, AGENTS - i) }, async (_, j) => {
      const r = await fetch(`${base}/api/account/agents`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${owner.api_key}` },
        body: JSON.stringify({ handle: `hb${stamp}-${i + j}`, display_name: `agent ${i + j}` })
      })
      if (!r.ok) throw new Error(`create agent: ${r.status} ${await r.text()}`)
      return ((await r.json()) as { api_key: string }).api_key
    }))
    keys.push(...batch)
  }
  return keys
}

// where the next heartbeat's key is taken: runs continue where the previous one stopped, so every agent calls in
// turn over the whole bench (each key recurs every AGENTS requests) rather than each slice repeating the first ones
let next = 0

/** POSTs with no body, each with the next agent's key in turn. */
const heartbeats = (
  url: string,
  keys: ReadonlyArray<string>,
  options: { seconds?: number; amount?: number; connections: number }
) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    autocannon({
      url,
      ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds }),
      connections: options.connections,
      requests: [{
        method: "POST",
        setupRequest: (req: any) => ({
          ...req,
          headers: { ...req.headers, authorization: `Bearer ${keys[next++ % keys.length]}` }
        })
      }]
    }, (err, result) => (err ? reject(err) : resolve(result)))
  })

export const run = async () => {
  const duration = seconds()
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 100)
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-heartbeat-"))
  const shoalPort = await freePort()
  const helloPort = await freePort()
  const spawnedAt = Date.now()
  const shoal = startTs("src/main.ts", {
    DATA_DIR: dataDir,
    PORT: String(shoalPort),
    WALLET_PORT: String(await freePort()),
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_MINUTE: String(1e9),
    DNS_PORT: "0",
    DATABASE_URL: ""
  })
  const hello = startTs("bench/hello-server.ts", {}, [String(helloPort)])
  try {
    const shoalBase = `http://127.0.0.1:${shoalPort}`
    const helloUrl = `http://127.0.0.1:${helloPort}/hello`
    await Promise.all([waitFor(`${shoalBase}/health`, shoal), waitFor(helloUrl, hello)])
    const created = Date.now()
    const keys = await createAgents(shoalBase)
    const createSeconds = (Date.now() - created) / 1000
    const url = `${shoalBase}/api/agent/heartbeat`

    // warm both: every agent's first heartbeat (its key read into the cache, its presence announced in batched
    // transactions) is not the steady state; two rounds over all agents, then a pause for the presence batches
    await load(helloUrl, { seconds: 2, connections })
    const warm = await heartbeats(url, keys, { amount: 2 * AGENTS, connections })
    await new Promise((r) => setTimeout(r, 5_000))
    const slices = Number(process.env.BENCH_SLICES ?? 3)
    const baseRuns = []
    const beatRuns = []
    const cpu = { hello: 0, shoal: 0 }
    const windows: Array<string> = []
    // CPU time the server spent in a slice (user + system, from /proc), per request: less noisy than req/s
    const timed = async <A>(pid: number | undefined, side: keyof typeof cpu, f: () => Promise<A>) => {
      const before = cpuMs(pid)
      const result = await f()
      const after = cpuMs(pid)
      if (before !== undefined && after !== undefined) cpu[side] += after - before
      return result
    }
    for (let i = 0; i < slices; i++) {
      const secs = Math.max(1, Math.round(duration / slices))
      baseRuns.push(await timed(hello.child.pid, "hello", () => load(helloUrl, { seconds: secs, connections })))
      const from = (Date.now() - spawnedAt) / 1000
      beatRuns.push(await timed(shoal.child.pid, "shoal", () => heartbeats(url, keys, { seconds: secs, connections })))
      windows.push(`${from.toFixed(1)}–${((Date.now() - spawnedAt) / 1000).toFixed(1)}`)
    }
    // where to look in a profile (BENCH_PROFILE): its clock starts about when the process does
    if (process.env.BENCH_PROFILE) {
      console.log(`heartbeat slices, seconds after the server started: ${windows.join(", ")}`)
    }
    const mean = (rs: Array<{ requests: { average: number } }>) =>
      rs.reduce((a, r) => a + r.requests.average, 0) / rs.length
    const p99 = (rs: Array<{ latency: { p99: number } }>) => Math.max(...rs.map((r) => r.latency.p99))
    const base = mean(baseRuns)
    const beat = mean(beatRuns)
    const non2xx = beatRuns.reduce((a, r) => a + r.non2xx + r.errors, 0) + warm.non2xx + warm.errors
    const sent = beatRuns.reduce((a, r) => a + r.requests.total, 0)
    console.log(
      `heartbeat bench: ${AGENTS} agents (created in ${createSeconds.toFixed(0)} s), ${duration}s per server in ` +
        `${slices} alternating slices, ${connections} connections, autocannon`
    )
    const baseSent = baseRuns.reduce((a, r) => a + r.requests.total, 0)
    const perRequest = (ms: number, n: number) => ms > 0 ? `  server CPU ${(ms * 1000 / n).toFixed(0)} µs/request` : ""
    console.log(
      `  hello-world HttpApi         ${base.toFixed(0)} req/s  p99 ${p99(baseRuns)} ms` +
        perRequest(cpu.hello, baseSent)
    )
    console.log(
      `  POST /api/agent/heartbeat   ${beat.toFixed(0)} req/s  p99 ${p99(beatRuns)} ms  (${sent} heartbeats, ` +
        `every agent ${(sent / AGENTS).toFixed(1)}× on average, each key again after ${(AGENTS / beat).toFixed(0)} s)` +
        perRequest(cpu.shoal, sent) +
        (non2xx > 0 ? `  (${non2xx} non-2xx/errors!)` : "")
    )
    const rate = `${beat.toFixed(0)} vs ${base.toFixed(0)} req/s`
    const beatCpu = cpu.shoal > 0 ? cpu.shoal * 1000 / sent : undefined
    const baseCpu = cpu.hello > 0 ? cpu.hello * 1000 / baseSent : undefined
    if (beatCpu !== undefined && baseCpu !== undefined) {
      console.log(
        `  CPU per request ${(beatCpu / baseCpu).toFixed(2)}× the hello-world's (goal ≤ 2.00×); ` +
          `req/s ${(beat / base).toFixed(2)}×`
      )
      report({
        bench: "heartbeat",
        measure: "heartbeats from 10,000 agents: server CPU/request vs hello-world",
        value: `${beatCpu.toFixed(0)} vs ${baseCpu.toFixed(0)} µs/request (${rate})`,
        figure: beatCpu / baseCpu,
        goal: { atMost: 2 }
      })
    } else {
      console.log(`  req/s ${(beat / base).toFixed(2)}×; no /proc, so no CPU per request: goal not judged`)
    }
  } finally {
    await Promise.all([shoal.stop(), hello.stop()])
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
