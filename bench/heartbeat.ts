// `npm run bench -- heartbeat`: heartbeats/second (POST /api/agent/heartbeat with an empty body) from BENCH_AGENTS
// agents (default 10,000), each request with the next agent's key, against an Effect HttpApi hello-world, same load
// tool, same run. Goal (issue 42): the server's CPU per heartbeat ≤ 2× the hello-world's per request; req/s is
// printed beside it. A heartbeat is a cached key check and an in-memory touch; last-seen times are
// written in batches (HEARTBEAT_FLUSH_INTERVAL, HEARTBEAT_WRITE_GRAIN), so the database is not on the request's path.
// `BENCH_COMPARE=<git ref>` also runs that commit's server (its own checkout and agents, this one's packages),
// alternating with the others slice by slice, as the auth bench does: before and after, side by side.
import autocannon from "autocannon"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import {
  checkoutOf,
  cpuMs,
  freePort,
  load,
  type Proc,
  report,
  seconds,
  spawnShoal,
  startHello,
  waitFor
} from "./support.js"

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

/** A Shoal server under load, with its agents' keys. */
interface Shoal {
  readonly name: string
  readonly proc: Proc
  readonly url: string
  readonly keys: ReadonlyArray<string>
  readonly spawnedAt: number
  readonly createSeconds: number
  // where the next heartbeat's key is taken: runs continue where the previous one stopped, so every agent calls in
  // turn over the whole bench (each key recurs every AGENTS requests) rather than each slice repeating the first ones
  next: number
  readonly runs: Array<autocannon.Result>
  readonly windows: Array<string>
  cpu: number
}

const startShoal = async (name: string, cwd: string | undefined, dataDir: string): Promise<Shoal> => {
  const spawnedAt = Date.now()
  const { base, proc } = await spawnShoal({ dataDir, cwd })
  const created = Date.now()
  const keys = await createAgents(base)
  return {
    name,
    proc,
    url: `${base}/api/agent/heartbeat`,
    keys,
    spawnedAt,
    createSeconds: (Date.now() - created) / 1000,
    next: 0,
    runs: [],
    windows: [],
    cpu: 0
  }
}

/** POSTs with no body, each with the next agent's key in turn. */
const heartbeats = (
  shoal: Shoal,
  options: { seconds?: number; amount?: number; connections: number }
) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    autocannon({
      url: shoal.url,
      ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds }),
      connections: options.connections,
      requests: [{
        method: "POST",
        setupRequest: (req: any) => ({
          ...req,
          headers: { ...req.headers, authorization: `Bearer ${shoal.keys[shoal.next++ % shoal.keys.length]}` }
        })
      }]
    }, (err, result) => (err ? reject(err) : resolve(result)))
  })

export const run = async () => {
  const duration = seconds()
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 100)
  const compare = process.env.BENCH_COMPARE
  const dirs = [Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-heartbeat-"))]
  const checkout = compare ? checkoutOf(compare) : undefined
  const helloPort = await freePort()
  const hello = startHello(helloPort)
  const shoals: Array<Shoal> = []
  try {
    const helloUrl = `http://127.0.0.1:${helloPort}/hello`
    await waitFor(helloUrl, hello)
    shoals.push(await startShoal("POST /api/agent/heartbeat", undefined, dirs[0]!))
    if (checkout) {
      dirs.push(Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-heartbeat-")))
      shoals.push(await startShoal(`  @${compare}`, checkout.dir, dirs[1]!))
    }

    // warm all: every agent's first heartbeat (its key read into the cache, its presence announced in batched
    // transactions) is not the steady state; two rounds over all agents, then a pause for the presence batches
    await load(helloUrl, { seconds: 2, connections })
    const warm: Array<autocannon.Result> = []
    for (const shoal of shoals) warm.push(await heartbeats(shoal, { amount: 2 * AGENTS, connections }))
    await new Promise((r) => setTimeout(r, 5_000))
    const slices = Number(process.env.BENCH_SLICES ?? 3)
    const baseRuns = []
    let helloCpu = 0
    // CPU time the server spent in a slice (user + system, from /proc), per request: less noisy than req/s
    const timed = async <A>(pid: number | undefined, add: (ms: number) => void, f: () => Promise<A>) => {
      const before = cpuMs(pid)
      const result = await f()
      const after = cpuMs(pid)
      if (before !== undefined && after !== undefined) add(after - before)
      return result
    }
    for (let i = 0; i < slices; i++) {
      const secs = Math.max(1, Math.round(duration / slices))
      baseRuns.push(
        await timed(hello.child.pid, (ms) => (helloCpu += ms), () => load(helloUrl, { seconds: secs, connections }))
      )
      for (const shoal of shoals) {
        const from = (Date.now() - shoal.spawnedAt) / 1000
        shoal.runs.push(
          await timed(
            shoal.proc.child.pid,
            (ms) => (shoal.cpu += ms),
            () => heartbeats(shoal, { seconds: secs, connections })
          )
        )
        shoal.windows.push(`${from.toFixed(1)}–${((Date.now() - shoal.spawnedAt) / 1000).toFixed(1)}`)
      }
    }
    // where to look in a profile (BENCH_PROFILE): its clock starts about when the process does
    if (process.env.BENCH_PROFILE) {
      for (const shoal of shoals) {
        console.log(
          `heartbeat slices${shoal === shoals[0] ? "" : ` (${shoal.name.trim()}, pid ${shoal.proc.child.pid})`}, ` +
            `seconds after the server started: ${shoal.windows.join(", ")}`
        )
      }
    }
    const mean = (rs: Array<{ requests: { average: number } }>) =>
      rs.reduce((a, r) => a + r.requests.average, 0) / rs.length
    const p99 = (rs: Array<{ latency: { p99: number } }>) => Math.max(...rs.map((r) => r.latency.p99))
    const sentOf = (rs: Array<{ requests: { total: number } }>) => rs.reduce((a, r) => a + r.requests.total, 0)
    const base = mean(baseRuns)
    const baseSent = sentOf(baseRuns)
    const baseCpu = helloCpu > 0 ? helloCpu * 1000 / baseSent : undefined
    console.log(
      `heartbeat bench: ${AGENTS} agents (created in ${
        shoals.map((s) => s.createSeconds.toFixed(0)).join(", ")
      } s), ${duration}s per server in ${slices} alternating slices, ${connections} connections, autocannon`
    )
    const perRequest = (ms: number, n: number) => ms > 0 ? `  server CPU ${(ms * 1000 / n).toFixed(0)} µs/request` : ""
    console.log(
      `  hello-world HttpApi         ${base.toFixed(0)} req/s  p99 ${p99(baseRuns)} ms` + perRequest(helloCpu, baseSent)
    )
    for (const [shoal, w] of shoals.map((s, i) => [s, warm[i]!] as const)) {
      const beat = mean(shoal.runs)
      const sent = sentOf(shoal.runs)
      const non2xx = shoal.runs.reduce((a, r) => a + r.non2xx + r.errors, 0) + w.non2xx + w.errors
      console.log(
        `  ${shoal.name.padEnd(27)} ${beat.toFixed(0)} req/s  p99 ${p99(shoal.runs)} ms  (${sent} heartbeats, ` +
          `every agent ${(sent / AGENTS).toFixed(1)}× on average, each key again after ${
            (AGENTS / beat).toFixed(0)
          } s)` +
          perRequest(shoal.cpu, sent) +
          (non2xx > 0 ? `  (${non2xx} non-2xx/errors!)` : "")
      )
    }
    const [me, before] = shoals
    const beat = mean(me!.runs)
    const rate = `${beat.toFixed(0)} vs ${base.toFixed(0)} req/s`
    const cpuPer = (s: Shoal) => s.cpu > 0 ? s.cpu * 1000 / sentOf(s.runs) : undefined
    const beatCpu = cpuPer(me!)
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
    if (before) {
      const beforeCpu = cpuPer(before)
      console.log(
        `  @${compare}: this commit vs it ${(beat / mean(before.runs)).toFixed(2)}× req/s` +
          (beatCpu !== undefined && beforeCpu !== undefined
            ? `, ${(beatCpu / beforeCpu).toFixed(2)}× CPU per request` +
              (baseCpu !== undefined ? ` (it: ${(beforeCpu / baseCpu).toFixed(2)}× the hello-world's)` : "")
            : "")
      )
    }
  } finally {
    await Promise.all(shoals.map((s) => s.proc.stop()).concat(hello.stop()))
    for (const dir of dirs) Fs.rmSync(dir, { recursive: true, force: true })
    checkout?.remove()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
