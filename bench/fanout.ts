// `npm run bench -- fanout` (or `npx tsx bench/fanout.ts`): WebSocket fan-out of the real app against a bare `ws`
// broadcast in the same run. Goals (issue 22): ≤ 8 KB of server memory per connection; the last of 10,000 sockets
// has the event within 1.5× the bare broadcast; connect + ready of 10,000 sockets within 2× the bare server; at 1,000
// REST writes/s over 1,000 sockets, push p99 ≤ 2× the REST p99. Each figure is printed beside its goal.
// Server and clients run in their own processes (file limit raised with the shell's `ulimit -n`), on 127.0.0.1.
// Memory per connection is a slope: the sockets connect in BENCH_STEPS equal steps, and after each the server's RSS
// is read after forced full GCs and a settle (the median of several reads); the least-squares slope of RSS over
// the socket count is the marginal cost of a connection, free of what the first connections allocate once (code,
// caches, the embedded database's pages). The heap's slope is printed beside it.
// The server's CPU time per connect (from /proc, to `ready` and until its presence frames) is printed beside the
// connect figure: the wall-clock ratio swings with what else the machine runs, the CPU per connect much less.
// BENCH_DATABASE_URL runs Shoal on a PostgreSQL server (give it a fresh database); BENCH_LATENCY=0 skips the
// REST → frame runs; BENCH_ROUNDS sets the fan-out rounds (9; a round's time swings by half with the clients'
// process, so the median of 5 moved the ratio by 0.3). Shoal's server runs with `npm start`'s V8 flags;
// BENCH_SERVER_ARGS adds node flags of its own (an experiment: say so beside its figures).
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort, npmStartFlags, report } from "./support.js"

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000)
const LATENCY_SOCKETS = Math.min(1_000, SOCKETS)
const RATE = Number(process.env.BENCH_RATE ?? 1_000)
// a rate the embedded database sustains, so the same comparison is also shown unsaturated
const LOW_RATE = Number(process.env.BENCH_LOW_RATE ?? 100)
const LATENCY_SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9)
const STEPS = Math.max(2, Number(process.env.BENCH_STEPS ?? 4))
const now = () => performance.timeOrigin + performance.now()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
// BENCH_PROFILE=<dir>: both servers write a V8 CPU profile there when they stop (Shoal's is the larger); the phases
// are printed on the profiles' clock (the monotonic clock, µs) so their samples can be cut into connect and fan-out
const mark = (phase: string) => {
  if (process.env.BENCH_PROFILE) console.log(`  [profile] ${phase} at ${process.hrtime.bigint() / 1000n} µs`)
}

interface Child {
  readonly proc: ChildProcess
  readonly output: () => string
  readonly next: (type: string, timeoutMs?: number) => Promise<any>
  readonly stop: () => Promise<void>
}

// `ulimit -n` is raised in a shell that then execs node, so the pid is node's (for /proc/<pid>/status)
const spawnNode = (entry: string, env: Record<string, string>, nodeArgs: Array<string> = []): Child => {
  const cmd = `ulimit -n $(ulimit -Hn) 2>/dev/null; exec "${process.execPath}" ${
    nodeArgs.join(" ")
  } --import tsx ${entry}`
  const proc = spawn("sh", ["-c", cmd], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"]
  })
  let out = ""
  proc.stdout!.on("data", (d) => (out += d))
  proc.stderr!.on("data", (d) => (out += d))
  const inbox: Array<any> = []
  const waiters: Array<() => void> = []
  proc.on("message", (m) => {
    inbox.push(m)
    for (const w of waiters.splice(0)) w()
  })
  const next = async (type: string, timeoutMs = 300_000) => {
    const until = Date.now() + timeoutMs
    while (true) {
      const i = inbox.findIndex((m) => m.type === type)
      if (i >= 0) return inbox.splice(i, 1)[0]
      if (Date.now() > until || proc.exitCode !== null) {
        throw new Error(`no "${type}" from ${entry}:\n${out.slice(-2000)}`)
      }
      await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(500)])
    }
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve()
      proc.once("exit", () => resolve())
      proc.kill("SIGTERM")
      setTimeout(() => proc.kill("SIGKILL"), 10_000).unref()
    })
  return { proc, output: () => out, next, stop }
}

const waitUp = async (url: string, child: Child, ms = 180_000) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    try {
      // a bounded probe: a request that lands while the server is still wiring its routes would hang
      if ((await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok) return
    } catch {
      // not up yet
    }
    if (child.proc.exitCode !== null) break
    await sleep(200)
  }
  throw new Error(`${url} did not come up:\n${child.output().slice(-3000)}`)
}

// the Shoal server runs with the V8 flags `npm start` runs it with (bench/support.ts, npmStartFlags)
const startFlags = npmStartFlags

/** CPU time (user + system) the process has used so far, µs (clock ticks of 10 ms): load-robust, unlike wall time */
const cpuUs = (pid: number) => {
  const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100)
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)

const percentile = (xs: Array<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

/** RSS and V8 heap after a full GC in the server. */
const memory = async (base: string, pid: number) => {
  type Stats = { heapUsed: number; heapTotal: number; external: number; wasm?: number }
  // V8 gives pages back some time after a full GC, not during it: collect, wait, collect again, then read
  let stats: Stats | undefined
  const series: Array<string> = []
  const rss: Array<number> = []
  const retained: Array<Stats> = []
  for (let i = 0; i < 6; i++) {
    stats = (await (await fetch(`${base}/bench/stats`)).json()) as Stats
    await sleep(750)
    // the first reads still see pages V8 is about to give back and objects a finished request let go: the
    // median of the last four
    if (i >= 2) {
      rss.push(rssKb(pid) * 1024)
      retained.push(stats)
    }
    series.push(`${(stats.heapTotal / 1048576).toFixed(0)}/${(rssKb(pid) / 1024).toFixed(0)}`)
  }
  if (process.env.BENCH_DEBUG) console.log(`  heapTotal/RSS MB after each GC: ${series.join(" ")}`)
  stats = stats!
  const median = (of: (s: Stats) => number) => percentile(retained.map(of), 50)
  return {
    rss: percentile(rss, 50),
    heap: median((s) => s.heapUsed),
    heapTotal: stats.heapTotal,
    external: median((s) => s.external),
    wasm: stats.wasm ?? 0
  }
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1)

/** Connects the clients, measures memory per connection and ROUNDS fan-outs of one frame to every socket. */
const fanout = async (options: {
  readonly name: string
  readonly base: string
  readonly server: Child
  readonly trigger: string
  readonly keysFile?: string
  readonly waitPresence: boolean
}) => {
  // the trigger once before any socket is open: what the first write allocates (database pages, code) is not
  // the sockets' memory; then a settled baseline
  const warm = await fetch(`${options.base}${options.trigger}`, { method: "POST" })
  if (!warm.ok) throw new Error(`${options.name} warm-up: ${warm.status} ${await warm.text()}`)
  await sleep(3_000)
  const before = await memory(options.base, options.server.proc.pid!)
  const clients = spawnNode("bench/fanout-clients.ts", {
    BENCH_URL: `${options.base.replace("http", "ws")}/api/agent/ws`,
    BENCH_SOCKETS: String(SOCKETS),
    ...(options.keysFile ? { BENCH_KEYS_FILE: options.keysFile } : {})
  })
  await clients.next("started")
  // in steps: the slope of memory over the socket count is the marginal cost of a connection, free of what the
  // first connections allocate once (code, caches, database pages)
  mark(`${options.name} connect start`)
  let connectMs = 0
  let closedEarly = 0
  let connectLoad = 0
  // the server's CPU from each step's start to its `ready` and to its presence frames (the connect's work done)
  let cpuReady = 0
  let cpuSettled = 0
  // per step: the first pays for what runs once (code tiering up, first allocations), the later ones are the steady
  // state
  const cpuSteps: Array<number> = []
  const pid = options.server.proc.pid!
  const connect = async (upTo: number) => {
    const t0 = now()
    const cpu0 = cpuUs(pid)
    mark(`${options.name} step to ${upTo} start`)
    clients.proc.send({ type: "connect", upTo })
    closedEarly = (await clients.next("opened")).closed as number
    await clients.next("ready")
    connectMs += now() - t0
    const used = cpuUs(pid) - cpu0
    cpuReady += used
    cpuSteps.push(used)
    mark(`${options.name} step to ${upTo} ready`)
    connectLoad = Os.loadavg()[0]!
    if (options.waitPresence) await clients.next("presence")
    cpuSettled += cpuUs(pid) - cpu0
    mark(`${options.name} step to ${upTo} presence`)
    await sleep(1_000)
    return memory(options.base, options.server.proc.pid!)
  }
  const steps: Array<{ sockets: number; memory: Awaited<ReturnType<typeof memory>> }> = []
  for (let i = 1; i <= STEPS; i++) {
    const upTo = Math.round((SOCKETS * i) / STEPS)
    steps.push({ sockets: upTo, memory: await connect(upTo) })
  }
  const after = steps[steps.length - 1]!.memory
  mark(`${options.name} connect end, fan-out start`)
  const rounds: Array<{ last: number; first: number }> = []
  // round 0 warms up (JIT, first allocation of the frame buffers) and is not counted
  for (let r = 0; r <= ROUNDS; r++) {
    clients.proc.send({ type: "arm", marker: "bench.fanout" })
    await sleep(200)
    const start = now()
    const res = await fetch(`${options.base}${options.trigger}`, { method: "POST" })
    if (!res.ok) throw new Error(`${options.name} trigger: ${res.status} ${await res.text()}`)
    const got = await clients.next("fanout", 60_000)
    if (r > 0) rounds.push({ first: got.first - start, last: got.last - start })
    await sleep(500)
  }
  mark(`${options.name} fan-out end`)
  return {
    before,
    steps,
    after,
    rounds,
    clients,
    connectMs,
    closedEarly,
    connectLoad,
    fanoutLoad: Os.loadavg()[0]!,
    cpuReady,
    cpuSettled,
    cpuSteps
  }
}

export const run = async (): Promise<void> => {
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-fanout-"))
  const keysFile = Path.join(dataDir, "keys.json")
  const rawPort = await freePort()
  const shoalPort = await freePort()
  const children: Array<Child> = []
  try {
    // the baseline: bare ws, same clients, same machine, same run
    const profile = process.env.BENCH_PROFILE
      ? ["--cpu-prof", `--cpu-prof-dir=${Path.resolve(process.env.BENCH_PROFILE)}`]
      : []
    const raw = spawnNode("bench/fanout-raw.ts", { PORT: String(rawPort) }, ["--expose-gc", ...profile])
    children.push(raw)
    const rawBase = `http://127.0.0.1:${rawPort}`
    await waitUp(`${rawBase}/health`, raw)
    const baseline = await fanout({
      name: "raw",
      base: rawBase,
      server: raw,
      trigger: "/broadcast",
      waitPresence: false
    })
    baseline.clients.proc.send({ type: "close" })
    await baseline.clients.stop()
    await raw.stop()

    const shoal = spawnNode("bench/fanout-shoal.ts", {
      PORT: String(shoalPort),
      DATA_DIR: dataDir,
      // the embedded database, as `npm start` runs; BENCH_DATABASE_URL (a fresh, empty database) for a server
      DATABASE_URL: process.env.BENCH_DATABASE_URL ?? "",
      BENCH_AGENTS: String(SOCKETS),
      BENCH_KEYS_FILE: keysFile,
      RATE_LIMIT_PER_MINUTE: String(1e9),
      // every client socket comes from 127.0.0.1: no per-address cap, and room for all of them plus the bench's calls
      HTTP_MAX_CONNECTIONS_PER_IP: "0",
      HTTP_MAX_CONNECTIONS: "0"
    }, ["--expose-gc", ...startFlags, ...(process.env.BENCH_SERVER_ARGS?.split(" ").filter(Boolean) ?? []), ...profile])
    children.push(shoal)
    const base = `http://127.0.0.1:${shoalPort}`
    await waitUp(`${base}/health`, shoal)
    const result = await fanout({
      name: "shoal",
      base,
      server: shoal,
      trigger: "/bench/fanout",
      keysFile,
      waitPresence: true
    })
    children.push(result.clients)

    // REST write → frame: PATCH /api/agent/profile at RATE/s over LATENCY_SOCKETS agents, each emits profile.updated
    const keys = JSON.parse(Fs.readFileSync(keysFile, "utf8")) as Array<{ key: string }>
    // the sustainable rate first, on a server that has not been overloaded yet
    const latencyRuns = [LOW_RATE, RATE].map((rate) => async () => {
      result.clients.proc.send({ type: "latency", upTo: LATENCY_SOCKETS })
      await sleep(200)
      const sent: Array<Array<number>> = Array.from({ length: LATENCY_SOCKETS }, () => [])
      const rest: Array<number> = []
      let failures = 0
      let firstFailure = ""
      const total = rate * LATENCY_SECONDS
      const inflight: Array<Promise<void>> = []
      const start = now()
      let fired = 0
      while (fired < total) {
        const due = Math.min(total, Math.floor(((now() - start) * rate) / 1000))
        for (; fired < due; fired++) {
          const agent = fired % LATENCY_SOCKETS
          const t = now()
          sent[agent]!.push(t)
          inflight.push(
            fetch(`${base}/api/agent/profile`, {
              method: "PATCH",
              headers: { authorization: `Bearer ${keys[agent]!.key}`, "content-type": "application/json" },
              body: JSON.stringify({ bio: `bio ${fired}` })
            }).then(async (res) => {
              await res.arrayBuffer()
              if (res.ok) rest.push(now() - t)
              else if (failures++ === 0) firstFailure = `HTTP ${res.status}`
            }, (e) => {
              if (failures++ === 0) firstFailure = String(e?.cause ?? e)
            })
          )
        }
        await sleep(1)
      }
      const sendSeconds = (now() - start) / 1000
      await Promise.all(inflight)
      const drained = (now() - start) / 1000
      await sleep(2_000)
      result.clients.proc.send({ type: "report" })
      const { arrivals } = await result.clients.next("arrivals")
      const push: Array<number> = []
      let missing = 0
      for (let i = 0; i < LATENCY_SOCKETS; i++) {
        const a = arrivals[i] as Array<number>
        sent[i]!.forEach((t, j) => (a[j] === undefined ? missing++ : push.push(a[j]! - t)))
      }
      return { rate, rest, push, failures, firstFailure, missing, sendSeconds, achieved: rest.length / drained }
    })
    const latencies = []
    // BENCH_LATENCY=0: the fan-out and memory figures alone
    if (process.env.BENCH_LATENCY !== "0") { for (const run of latencyRuns) latencies.push(await run()) }
    const final = await memory(base, shoal.proc.pid!)

    /** least-squares slope of a memory figure over the socket count, bytes per socket */
    const slope = (m: typeof result, of: (x: typeof result.after) => number) => {
      const xs = m.steps.map((s) => s.sockets)
      const ys = m.steps.map((s) => of(s.memory))
      const mx = xs.reduce((a, b) => a + b, 0) / xs.length
      const my = ys.reduce((a, b) => a + b, 0) / ys.length
      const num = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0)
      return num / xs.reduce((a, x) => a + (x - mx) ** 2, 0)
    }
    // what the process keeps per socket: live V8 objects, buffers outside the heap and the embedded database's
    // memory, after full GCs. RSS also counts pages the GC and malloc have not given back yet, which depend on what
    // ran before (seeding 10,000 accounts, the connect storm): printed beside it, not a goal figure
    const retained = (x: typeof result.after) => x.heap + x.external + x.wasm
    const marginal = (m: typeof result) => slope(m, retained)
    const perConn = (m: typeof result) => ({
      rss: (m.after.rss - m.before.rss) / SOCKETS,
      heap: (m.after.heap - m.before.heap) / SOCKETS,
      heapTotal: (m.after.heapTotal - m.before.heapTotal) / SOCKETS,
      external: (m.after.external - m.before.external) / SOCKETS,
      wasm: (m.after.wasm - m.before.wasm) / SOCKETS
    })
    const lastMs = (m: typeof result) => percentile(m.rounds.map((r) => r.last), 50)
    const rawPer = perConn(baseline)
    const shoalPer = perConn(result)
    console.log(
      `fanout bench: ${SOCKETS} authenticated sockets on one server process, 127.0.0.1, ${ROUNDS} rounds + 1 warm-up,` +
        ` ${process.env.BENCH_DATABASE_URL ? "PostgreSQL server" : "embedded database"}`
    )
    console.log(
      `  memory per connection    raw ws ${kb(marginal(baseline))} KB   Shoal ${kb(marginal(result))} KB` +
        `   goal ≤ 8 KB ${marginal(result) <= 8 * 1024 ? "(met)" : "(NOT met)"}` +
        `   (heap + external + embedded database, slope over ${STEPS} steps of ${SOCKETS / STEPS} sockets;` +
        ` RSS slope raw ${kb(slope(baseline, (x) => x.rss))} / Shoal ${kb(slope(result, (x) => x.rss))} KB)`
    )
    console.log(
      `    heap+external+db / RSS MB at each step: raw ${
        baseline.steps.map((s) => `${(retained(s.memory) / 1048576).toFixed(1)}/${(s.memory.rss / 1048576).toFixed(0)}`)
          .join(" ")
      }; Shoal ${
        result.steps.map((s) => `${(retained(s.memory) / 1048576).toFixed(1)}/${(s.memory.rss / 1048576).toFixed(0)}`)
          .join(" ")
      }`
    )
    console.log(
      `    all ${SOCKETS} from none: raw ws RSS ${kb(rawPer.rss)} KB, heap ${kb(rawPer.heap)} KB;` +
        ` Shoal RSS ${kb(shoalPer.rss)} KB, heap ${kb(shoalPer.heap)} KB`
    )
    console.log(
      `    of which: V8 heap committed raw ${kb(rawPer.heapTotal)} / Shoal ${kb(shoalPer.heapTotal)} KB,` +
        ` external raw ${kb(rawPer.external)} / Shoal ${kb(shoalPer.external)} KB,` +
        ` embedded database memory grown ${kb(shoalPer.wasm)} KB`
    )
    console.log(
      `  connect + ready (all)    raw ws ${baseline.connectMs.toFixed(0)} ms   Shoal ${
        result.connectMs.toFixed(0)
      } ms   ratio ${(result.connectMs / baseline.connectMs).toFixed(2)}× goal ≤ 2× ${
        result.connectMs <= 2 * baseline.connectMs ? "(met)" : "(NOT met)"
      }   (load ${baseline.connectLoad.toFixed(1)} / ${result.connectLoad.toFixed(1)})` +
        (result.closedEarly + baseline.closedEarly > 0
          ? `  (${result.closedEarly + baseline.closedEarly} closed!)`
          : "")
    )
    console.log(
      `    server CPU per connect   raw ws ${(baseline.cpuReady / SOCKETS).toFixed(0)} µs   Shoal ${
        (result.cpuReady / SOCKETS).toFixed(0)
      } µs to ready, ${(result.cpuSettled / SOCKETS).toFixed(0)} µs with presence   ratio ${
        (result.cpuReady / baseline.cpuReady).toFixed(2)
      }× / ${(result.cpuSettled / baseline.cpuSettled).toFixed(2)}×   (process CPU time, 10 ms ticks)`
    )
    const perStep = (m: typeof result) => m.cpuSteps.map((us) => (us / (SOCKETS / STEPS)).toFixed(0)).join(" / ")
    console.log(
      `      to ready, each step of ${SOCKETS / STEPS}: raw ws ${perStep(baseline)} µs   Shoal ${perStep(result)} µs`
    )
    console.log(
      `  one event → last socket  raw ws ${baseline.rounds.map((r) => r.last.toFixed(0)).join("/")} ms` +
        `   Shoal ${result.rounds.map((r) => r.last.toFixed(0)).join("/")} ms` +
        `   median ratio ${(lastMs(result) / lastMs(baseline)).toFixed(2)}× goal ≤ 1.5× ${
          lastMs(result) <= 1.5 * lastMs(baseline) ? "(met)" : "(NOT met)"
        }   (load ${baseline.fanoutLoad.toFixed(1)} / ${result.fanoutLoad.toFixed(1)})`
    )
    // the first socket's time is the trigger's own cost (request, transaction, hand-off); last − first the sends
    console.log(
      `    first socket           raw ws ${baseline.rounds.map((r) => r.first.toFixed(0)).join("/")} ms` +
        `   Shoal ${result.rounds.map((r) => r.first.toFixed(0)).join("/")} ms`
    )
    report({
      bench: "fanout",
      measure: "memory per socket (heap + external + database slope)",
      value: `${kb(marginal(result))} vs raw ws ${kb(marginal(baseline))} KB`,
      figure: Number(kb(marginal(result))),
      goal: { atMost: 8 },
      unit: "KB"
    })
    report({
      bench: "fanout",
      measure: `connect + ready, ${SOCKETS} sockets vs raw ws`,
      value: `${result.connectMs.toFixed(0)} vs ${baseline.connectMs.toFixed(0)} ms`,
      figure: result.connectMs / baseline.connectMs,
      goal: { atMost: 2 }
    })
    report({
      bench: "fanout",
      measure: `one event → last of ${SOCKETS} sockets vs raw ws (median)`,
      value: `${lastMs(result).toFixed(0)} vs ${lastMs(baseline).toFixed(0)} ms`,
      figure: lastMs(result) / lastMs(baseline),
      goal: { atMost: 1.5 }
    })
    for (const l of latencies) {
      const restP99 = percentile(l.rest, 99)
      const pushP99 = percentile(l.push, 99)
      console.log(
        `  REST → frame, ${l.rate}/s over ${LATENCY_SOCKETS} sockets for ${LATENCY_SECONDS}s` +
          ` (${l.rest.length} ok at ${l.achieved.toFixed(0)}/s completed, ${l.failures} failed` +
          `${l.failures > 0 ? ` (${l.firstFailure})` : ""}, ${l.missing} frames missing)`
      )
      console.log(
        `    REST p50 ${percentile(l.rest, 50).toFixed(1)} ms  p99 ${restP99.toFixed(1)} ms;` +
          `  push p50 ${percentile(l.push, 50).toFixed(1)} ms  p99 ${pushP99.toFixed(1)} ms;` +
          `  ratio ${(pushP99 / restP99).toFixed(2)}× (goal ≤ 2×)`
      )
    }
    console.log(
      `  server after the run: RSS ${(final.rss / 1048576).toFixed(0)} MB, heap ${(final.heap / 1048576).toFixed(0)} MB`
    )
    result.clients.proc.send({ type: "close" })
  } finally {
    for (const c of children.reverse()) await c.stop()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then(() => process.exit(0), (e) => {
    console.error(e)
    process.exit(1)
  })
}
