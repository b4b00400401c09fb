// `npm run bench -- auth`: GET /api/agent/me (key lookup, rate limit, heartbeat, profile read) against an Effect
// HttpApi hello-world, same load tool, same run. Goal (issue 42): the server's CPU per request ≤ 1.5× the
// hello-world's (steadier than req/s on a loaded machine); req/s is printed beside it.
// `BENCH_COMPARE=<git ref>` also runs that commit's server in the same run (its own checkout, this one's
// packages), alternating with the others slice by slice: "no slower than before", measured side by side.
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

interface Target {
  readonly name: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly proc: Proc
  readonly runs: Array<
    { requests: { average: number; total: number }; latency: { p99: number }; non2xx: number; errors: number }
  >
  cpu: number
}

const startShoal = async (cwd: string | undefined, dataDir: string) => {
  const { base, proc } = await spawnShoal({ dataDir, cwd })
  const res = await fetch(`${base}/api/accounts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ handle: `bench${Date.now().toString(36)}`, display_name: "Bench" })
  })
  const { api_key } = (await res.json()) as { api_key: string }
  return { proc, url: `${base}/api/agent/me`, headers: { authorization: `Bearer ${api_key}` } }
}

export const run = async () => {
  const duration = seconds()
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 100)
  const compare = process.env.BENCH_COMPARE
  const dirs = [Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-auth-"))]
  const checkout = compare ? checkoutOf(compare) : undefined
  const helloPort = await freePort()
  const hello = startHello(helloPort)
  const targets: Array<Target> = []
  try {
    const helloUrl = `http://127.0.0.1:${helloPort}/hello`
    await waitFor(helloUrl, hello)
    targets.push({ name: "hello-world HttpApi", url: helloUrl, headers: {}, proc: hello, runs: [], cpu: 0 })
    const head = await startShoal(undefined, dirs[0]!)
    targets.push({ name: "GET /api/agent/me", ...head, runs: [], cpu: 0 })
    if (checkout) {
      dirs.push(Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-auth-")))
      const before = await startShoal(checkout.dir, dirs[1]!)
      targets.push({ name: `GET /api/agent/me @${compare}`, ...before, runs: [], cpu: 0 })
    }
    // warm all (JIT, caches) before measuring
    for (const t of targets) await load(t.url, { seconds: 2, connections, headers: t.headers })
    // alternate slices so a burst of background load hits every side alike
    const slices = Number(process.env.BENCH_SLICES ?? 3)
    for (let i = 0; i < slices; i++) {
      for (const t of targets) {
        const cpu0 = cpuMs(t.proc.child.pid)
        t.runs.push(
          await load(t.url, { seconds: Math.max(1, Math.round(duration / slices)), connections, headers: t.headers })
        )
        const cpu1 = cpuMs(t.proc.child.pid)
        if (cpu0 !== undefined && cpu1 !== undefined) t.cpu += cpu1 - cpu0
      }
    }
    const mean = (t: Target) => t.runs.reduce((a, r) => a + r.requests.average, 0) / t.runs.length
    const total = (t: Target) => t.runs.reduce((a, r) => a + r.requests.total, 0)
    const p99 = (t: Target) => Math.max(...t.runs.map((r) => r.latency.p99))
    console.log(
      `auth bench: ${duration}s per server in ${slices} alternating slices, ${connections} connections, autocannon`
    )
    for (const t of targets) {
      const bad = t.runs.reduce((a, r) => a + r.non2xx + r.errors, 0)
      const perRequest = t.cpu > 0 ? `  server CPU ${(t.cpu * 1000 / total(t)).toFixed(0)} µs/request` : ""
      console.log(
        `  ${t.name.padEnd(34)} ${mean(t).toFixed(0).padStart(6)} req/s  p99 ${p99(t)} ms${perRequest}` +
          (bad > 0 ? `  (${bad} non-2xx/errors!)` : "")
      )
    }
    const [base, me, before] = targets
    // µs of server CPU per request; undefined where /proc is not available
    const cpuPer = (t: Target) => t.cpu > 0 ? t.cpu * 1000 / total(t) : undefined
    const [meCpu, baseCpu] = [cpuPer(me!), cpuPer(base!)]
    const rate = `${mean(me!).toFixed(0)} vs ${mean(base!).toFixed(0)} req/s`
    if (meCpu !== undefined && baseCpu !== undefined) {
      console.log(
        `  CPU per request ${(meCpu / baseCpu).toFixed(2)}× the hello-world's (goal ≤ 1.50×); ` +
          `req/s ${(mean(me!) / mean(base!)).toFixed(2)}×`
      )
      report({
        bench: "auth",
        measure: "GET /api/agent/me server CPU/request vs HttpApi hello-world",
        value: `${meCpu.toFixed(0)} vs ${baseCpu.toFixed(0)} µs/request (${rate})`,
        figure: meCpu / baseCpu,
        goal: { atMost: 1.5 }
      })
    } else {
      console.log(`  req/s ${(mean(me!) / mean(base!)).toFixed(2)}×; no /proc, so no CPU per request: goal not judged`)
    }
    if (before) {
      const beforeCpu = cpuPer(before)
      console.log(
        `  @${compare}: this commit vs it ${(mean(me!) / mean(before)).toFixed(2)}× req/s` +
          (meCpu !== undefined && beforeCpu !== undefined
            ? `, ${(meCpu / beforeCpu).toFixed(2)}× CPU per request (goal ≤ 1.00×, no worse than before)`
            : "")
      )
    }
  } finally {
    await Promise.all(targets.map((t) => t.proc.stop()).concat(hello.stop()))
    for (const dir of dirs) Fs.rmSync(dir, { recursive: true, force: true })
    checkout?.remove()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
