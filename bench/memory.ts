// `npm run bench -- memory`: resident memory of the server as `npm start` runs it (the bundle, build/server/main.js,
// rebuilt first when stale), 5 seconds after it answers /health, idle. Goals (issue 22): embedded database ≤ 400 MB
// on the first start of a new data directory and ≤ 250 MB on later starts; PostgreSQL server (BENCH_DATABASE_URL,
// any database the server may migrate) ≤ 120 MB. BENCH_MEMORY_TSX=true also measures `node --import tsx
// src/main.ts`, the way `npm start` ran before, for comparison.
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort, type Proc, report, startNode, waitFor } from "./support.js"

const root = Path.resolve(import.meta.dirname, "..")
const SETTLE_MS = 5_000

/** VmRSS and VmHWM (the peak) of a process, in MB, from /proc/<pid>/status. */
const residentOf = (pid: number) => {
  const status = Fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) => Number(/\d+/.exec(status.split("\n").find((l) => l.startsWith(field)) ?? "")?.[0])
  return { rss: kb("VmRSS:") / 1024, peak: kb("VmHWM:") / 1024 }
}

const start = (args: ReadonlyArray<string>, env: Record<string, string>): Proc =>
  startNode(args, { ...process.env, NODE_OPTIONS: "", ...env }, root)

/** Starts the server, waits for /health, lets it sit idle SETTLE_MS, reads its memory and stops it. */
const measure = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const port = await freePort()
  const proc = start(args, {
    ...env,
    HOST: "127.0.0.1",
    PORT: String(port),
    WALLET_PORT: String(await freePort()),
    DNS_PORT: "0"
  })
  try {
    const started = Date.now()
    await waitFor(`http://127.0.0.1:${port}/health`, proc, 180_000)
    const ready = (Date.now() - started) / 1000
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    return { ...residentOf(proc.child.pid!), ready }
  } finally {
    await proc.stop()
  }
}

const row = (label: string, goal: number | undefined, m: { rss: number; peak: number; ready: number }) => {
  if (goal !== undefined) {
    report({
      bench: "memory",
      measure: `resident 5 s after start, idle: ${label}`,
      value: `${m.rss.toFixed(0)} MB`,
      figure: Math.round(m.rss),
      goal: { atMost: goal },
      unit: "MB"
    })
  }
  console.log(
    `  ${label.padEnd(34)} ${m.rss.toFixed(0).padStart(4)} MB` +
      (goal === undefined ? "".padEnd(15) : `  (goal ≤ ${goal})`.padEnd(15)) +
      `  peak ${m.peak.toFixed(0)} MB, ready in ${m.ready.toFixed(1)} s` +
      (goal === undefined ? "" : m.rss <= goal ? "  ok" : "  OVER")
  )
}

const series = async (name: string, args: ReadonlyArray<string>, goals: boolean) => {
  console.log(`${name}: node ${args.join(" ")}`)
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-memory-"))
  try {
    const env = { DATA_DIR: dataDir, DATABASE_URL: "" }
    row("embedded, first start (initdb)", goals ? 400 : undefined, await measure(args, env))
    row("embedded, later start", goals ? 250 : undefined, await measure(args, env))
  } finally {
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
  const url = process.env.BENCH_DATABASE_URL
  if (url) row("PostgreSQL server (DATABASE_URL)", goals ? 120 : undefined, await measure(args, { DATABASE_URL: url }))
  else console.log("  PostgreSQL server: set BENCH_DATABASE_URL to measure it")
}

export const run = async () => {
  const build = spawnSync(process.execPath, ["scripts/build-server.mjs", "--if-stale"], { cwd: root, stdio: "inherit" })
  if (build.status !== 0) throw new Error("the server bundle did not build")
  console.log(
    `memory bench: VmRSS ${SETTLE_MS / 1000} s after /health answers, idle; load ${Os.loadavg()[0]!.toFixed(1)}`
  )
  // the node arguments of package.json's start script (`exec node <flags> build/server/main.js`), so they cannot drift
  const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as { scripts: { start: string } }
  const startArgs = pkg.scripts.start.replace(/^exec node\s+/, "").split(/\s+/)
  await series("npm start", startArgs, true)
  if (process.env.BENCH_MEMORY_TSX === "true") await series("tsx", ["--import", "tsx", "src/main.ts"], false)
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
