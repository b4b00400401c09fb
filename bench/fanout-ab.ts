// A/B harness for the fan-out (not part of `npm run bench`): several fan-out servers at once, each with its own
// 10,000 clients, and interleaved rounds of one event → last socket, so a loaded machine weighs on all alike. Each
// server runs from its own tree, so two versions of Shoal compare in one run (e.g. a `git archive` of the base).
// Prints per server the median time to the last socket and the server's CPU per round (to the last frame).
//   AB_SERVERS="raw:$PWD:raw,shoal:/tmp/base:base,shoal:$PWD:new" AB_ROUNDS=15 npx tsx bench/fanout-ab.ts
// (kind:tree[:label]; BENCH_PROFILE=<dir> writes each server's CPU profile under <dir>/<label>)
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort, npmStartFlags } from "./support.js"

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000)
const ROUNDS = Number(process.env.AB_ROUNDS ?? 15)
const now = () => performance.timeOrigin + performance.now()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const spawnNode = (cwd: string, entry: string, env: Record<string, string>, nodeArgs: Array<string> = []) => {
  const cmd = `ulimit -n $(ulimit -Hn) 2>/dev/null; exec "${process.execPath}" ${
    nodeArgs.join(" ")
  } --import tsx ${entry}`
  const proc: ChildProcess = spawn("sh", ["-c", cmd], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"]
  })
  let out = ""
  proc.stdout!.on("data", (d) => {
    out += d
    if (process.env.AB_VERBOSE) process.stdout.write(`[${entry}] ${d}`)
  })
  proc.stderr!.on("data", (d) => (out += d))
  const inbox: Array<any> = []
  proc.on("message", (m) => inbox.push(m))
  const next = async (type: string, timeoutMs = 300_000) => {
    const until = Date.now() + timeoutMs
    while (true) {
      const i = inbox.findIndex((m) => m.type === type)
      if (i >= 0) return inbox.splice(i, 1)[0]
      if (Date.now() > until || proc.exitCode !== null) {
        throw new Error(`no ${type} from ${entry}:\n${out.slice(-3000)}`)
      }
      await sleep(1)
    }
  }
  return { proc, next, output: () => out }
}

const cpuUs = (pid: number) => {
  const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(f[11]) + Number(f[12])) * 1e4
}

const waitUp = async (url: string) => {
  for (let i = 0; i < 900; i++) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok) return
    } catch {}
    await sleep(200)
  }
  throw new Error(`${url} not up`)
}

const main = async () => {
  const specs = (process.env.AB_SERVERS ?? "").split(",").filter(Boolean).map((s) => {
    const [kind, cwd, label] = s.split(":")
    return { kind: kind!, cwd: cwd!, label: label ?? `${kind}@${Path.basename(cwd!)}` }
  })
  const all: Array<{ stop: () => void }> = []
  const dataDirs: Array<string> = []
  const servers = []
  try {
    for (const spec of specs) {
      const port = await freePort()
      const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ab-fanout-"))
      dataDirs.push(dataDir)
      const keysFile = Path.join(dataDir, "keys.json")
      const profile = process.env.BENCH_PROFILE
        ? ["--cpu-prof", `--cpu-prof-dir=${Path.resolve(process.env.BENCH_PROFILE, spec.label)}`]
        : []
      const server = spec.kind === "raw"
        ? spawnNode(spec.cwd, "bench/fanout-raw.ts", { PORT: String(port) }, ["--expose-gc", ...profile])
        : spawnNode(spec.cwd, "bench/fanout-shoal.ts", {
          PORT: String(port),
          DATA_DIR: dataDir,
          DATABASE_URL: process.env.BENCH_DATABASE_URL ?? "",
          BENCH_AGENTS: String(SOCKETS),
          BENCH_KEYS_FILE: keysFile,
          RATE_LIMIT_PER_MINUTE: String(1e9),
          HTTP_MAX_CONNECTIONS_PER_IP: "0",
          HTTP_MAX_CONNECTIONS: "0"
        }, ["--expose-gc", ...npmStartFlags, ...profile])
      all.push({ stop: () => server.proc.kill("SIGTERM") })
      const base = `http://127.0.0.1:${port}`
      await waitUp(`${base}/health`)
      const clients = spawnNode(process.cwd(), "bench/fanout-clients.ts", {
        BENCH_URL: `${base.replace("http", "ws")}/api/agent/ws`,
        BENCH_SOCKETS: String(SOCKETS),
        ...(spec.kind === "raw" ? {} : { BENCH_KEYS_FILE: keysFile })
      })
      all.push({ stop: () => clients.proc.kill("SIGKILL") })
      await clients.next("started")
      const t0 = now()
      const cpu0 = cpuUs(server.proc.pid!)
      clients.proc.send({ type: "connect", upTo: SOCKETS })
      await clients.next("opened")
      await clients.next("ready")
      const connectMs = now() - t0
      const connectCpu = cpuUs(server.proc.pid!) - cpu0
      if (spec.kind !== "raw") await clients.next("presence")
      console.log(
        `${spec.label}: connected in ${connectMs.toFixed(0)} ms, ${(connectCpu / SOCKETS).toFixed(0)} µs CPU/connect`
      )
      servers.push({
        ...spec,
        server,
        clients,
        trigger: `${base}${spec.kind === "raw" ? "/broadcast" : "/bench/fanout"}`,
        lasts: [] as Array<number>,
        cpus: [] as Array<number>
      })
    }
    await sleep(2_000)
    for (let r = 0; r <= ROUNDS; r++) {
      const order = r % 2 === 0 ? servers : [...servers].reverse()
      for (const s of order) {
        s.clients.proc.send({ type: "arm", marker: "bench.fanout" })
        await sleep(200)
        const cpu0 = cpuUs(s.server.proc.pid!)
        const start = now()
        const res = await fetch(s.trigger, { method: "POST" })
        if (!res.ok) throw new Error(`${s.label}: ${res.status}`)
        const got = await s.clients.next("fanout", 60_000)
        const cpu = cpuUs(s.server.proc.pid!) - cpu0
        if (r > 0) {
          s.lasts.push(got.last - start)
          s.cpus.push(cpu)
        }
        await sleep(300)
      }
    }
    const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const ref = servers[0]!
    for (const s of servers) {
      console.log(
        `${s.label.padEnd(20)} last median ${median(s.lasts).toFixed(0)} ms (${
          s.lasts.map((x) => x.toFixed(0)).join(" ")
        })  cpu median ${(median(s.cpus) / 1000).toFixed(0)} ms  ratio vs ${ref.label} ${
          (median(s.lasts) / median(ref.lasts)).toFixed(2)
        }×  per-round ratio median ${median(s.lasts.map((x, i) => x / ref.lasts[i]!)).toFixed(2)}×`
      )
    }
    console.log(`load ${Os.loadavg().map((x) => x.toFixed(1)).join(" ")}`)
  } finally {
    for (const c of all.reverse()) c.stop()
    // the servers stop on SIGTERM (a CPU profile is written then): their data directories go once they are gone
    await sleep(5_000)
    for (const dir of dataDirs) Fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e)
  process.exit(1)
})
