import autocannon from "autocannon"
import * as ChildProcess from "node:child_process"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import pg from "pg"

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = Net.createServer()
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as Net.AddressInfo).port
      srv.close(() => resolve(port))
    })
    srv.on("error", reject)
  })

export interface Proc {
  readonly child: ChildProcess.ChildProcess
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/**
 * The V8 flags `npm start` runs the server with (its young generation, pretenuring and V8's thread pool change the
 * GC's work and the memory a burst leaves resident): every `--` argument of its `exec node <flags> <script>`, read from
 * package.json so that a bench that runs the server with them cannot drift from it.
 */
export const npmStartFlags = (JSON.parse(Fs.readFileSync("package.json", "utf8")).scripts.start as string)
  .split(/\s+/)
  .filter((arg) => arg.startsWith("--"))

/**
 * BENCH_NODE_ARGS="--trace-gc --max-semi-space-size=8": more node arguments for the servers under test, after the
 * bench's own (a V8 flag given twice takes the later), to try a flag or trace the collector; BENCH_PROFILE=<dir>: they
 * write a V8 CPU profile there when they stop (open it in Chrome's DevTools or speedscope), to see where the time goes.
 */
const benchNodeArgs = (profile = true) => [
  ...(process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter((a) => a !== ""),
  ...(process.env.BENCH_PROFILE && profile
    ? ["--cpu-prof", `--cpu-prof-dir=${Path.resolve(process.env.BENCH_PROFILE)}`]
    : [])
]

/**
 * How the HTTP benches run Shoal (BENCH_RUNTIME): `bundle`, the default, as `npm start` runs it (build/server/main.js,
 * rebuilt when stale, with its V8 flags); `tsx`, from the sources as the tests run it (tsx's esbuild transform adds
 * `keepNames`: every named closure of src is renamed by a defineProperty when made). The hello-world gets the same
 * V8 flags, so both sides of a ratio run with one young generation.
 */
export const runtime = process.env.BENCH_RUNTIME === "tsx" ? "tsx" : "bundle"
const serverFlags = runtime === "bundle" ? npmStartFlags : []

/** The hello-world HttpApi baseline (bench/hello-server.ts) on `port`, with the V8 flags Shoal runs with. */
export const startHello = (port: number): Proc =>
  startTs("bench/hello-server.ts", {}, [String(port)], undefined, serverFlags)

/** Runs a TypeScript entry point in its own process (so the load generator does not share its event loop). */
export const startTs = (
  entry: string,
  env: Record<string, string>,
  args: ReadonlyArray<string> = [],
  cwd?: string,
  nodeArgs: ReadonlyArray<string> = []
): Proc => {
  // BENCH_PROFILE=<dir>: the servers under test write a V8 CPU profile there when they stop (open it in Chrome's
  // DevTools or speedscope), to see where the time goes
  const extra = benchNodeArgs(entry !== "bench/hello-server.ts")
  return startNode(
    [...nodeArgs, ...extra, "--import", "tsx", entry, ...args],
    { ...process.env, ...env },
    cwd
  )
}

/**
 * Shoal from `cwd` (this checkout by default) on loopback, its rate limits out of the way, no DNS responder, on the
 * embedded database in `dataDir` unless `database` names a server; resolves once `/health` answers.
 */
export const spawnShoal = async (options: {
  readonly dataDir: string
  readonly database?: string | undefined
  readonly cwd?: string | undefined
  readonly port?: number
}): Promise<{ readonly proc: Proc; readonly base: string; readonly port: number }> => {
  const port = options.port ?? await freePort()
  const env = {
    DATA_DIR: options.dataDir,
    PORT: String(port),
    WALLET_PORT: String(await freePort()),
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_MINUTE: String(1e9),
    DNS_PORT: "0",
    DATABASE_URL: options.database ?? ""
  }
  let proc: Proc
  if (runtime === "tsx") proc = startTs("src/main.ts", env, [], options.cwd)
  else {
    // the checkout's own bundle (a BENCH_COMPARE commit builds its sources with its own build script)
    ChildProcess.execFileSync(process.execPath, ["scripts/build-server.mjs", "--if-stale"], {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      stdio: "inherit"
    })
    proc = startNode(
      [...serverFlags, ...benchNodeArgs(), "build/server/main.js"],
      { ...process.env, ...env },
      options.cwd
    )
  }
  const base = `http://127.0.0.1:${port}`
  await waitFor(`${base}/health`, proc)
  return { proc, base, port }
}

/** A node process with its output collected, stopped with SIGTERM (SIGKILL after 10 s). */
export const startNode = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  cwd?: string
): Proc => {
  const child = spawn(process.execPath, args, {
    env,
    ...(cwd !== undefined ? { cwd } : {}),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  // BENCH_SERVER_OUT=/tmp/srv: each process's output also goes to /tmp/srv.<pid> (what --trace-gc prints, say)
  if (process.env.BENCH_SERVER_OUT) {
    const file = Fs.createWriteStream(`${process.env.BENCH_SERVER_OUT}.${child.pid}`)
    child.stdout!.pipe(file, { end: false })
    child.stderr!.pipe(file, { end: false })
    child.once("exit", () => file.end())
  }
  return {
    child,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
        setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
      })
  }
}

export const waitFor = async (url: string, proc: Proc, ms = 90_000) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not up yet
    }
    if (proc.child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${url} did not come up:\n${proc.output()}`)
}

export const load = (
  url: string,
  options: { seconds: number; connections: number; headers?: Record<string, string> }
) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      { url, duration: options.seconds, connections: options.connections, headers: options.headers ?? {} },
      (err, result) => (err ? reject(err) : resolve(result))
    )
  })

export const seconds = () => Number(process.env.BENCH_SECONDS ?? 10)

/** CPU time (user + system) a process has used so far, in ms; undefined where /proc is not available. */
export const cpuMs = (pid: number | undefined): number | undefined => {
  try {
    const fields = Fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100)
  } catch {
    return undefined
  }
}

/**
 * Connections the kernel dropped because a listening socket's accept queue was full (TcpExt ListenOverflows, the
 * whole machine), so far; undefined where /proc is not available. A dropped SYN is retransmitted by the client 1, 3,
 * 7 … s later: that wait is in its latency, and no server-side measure sees it.
 */
export const listenOverflows = (): number | undefined => {
  try {
    const lines = Fs.readFileSync("/proc/net/netstat", "utf8").split("\n").filter((l) => l.startsWith("TcpExt:"))
    const names = lines[0]!.split(/\s+/)
    const values = lines[1]!.split(/\s+/)
    const at = names.indexOf("ListenOverflows")
    return at < 0 ? undefined : Number(values[at])
  } catch {
    return undefined
  }
}

/**
 * A checkout of another commit of this repository, to run its server beside this one in the same bench run: a
 * detached git worktree whose `node_modules` links to this one's packages, except the workspace packages, which
 * point into that checkout (its own `@shoal/domain`). Removed by the returned function.
 */
export const checkoutOf = (ref: string): { readonly dir: string; readonly remove: () => void } => {
  const root = Path.resolve(".")
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-ref-"))
  ChildProcess.execFileSync("git", ["worktree", "add", "--detach", "--force", dir, ref], { stdio: "ignore" })
  const modules = Path.join(dir, "node_modules")
  Fs.mkdirSync(modules)
  for (const entry of Fs.readdirSync(Path.join(root, "node_modules"))) {
    if (entry === "@shoal") continue
    Fs.symlinkSync(Path.join(root, "node_modules", entry), Path.join(modules, entry))
  }
  Fs.mkdirSync(Path.join(modules, "@shoal"))
  for (const pkg of Fs.readdirSync(Path.join(dir, "packages"))) {
    Fs.symlinkSync(Path.join(dir, "packages", pkg), Path.join(modules, "@shoal", pkg))
  }
  return {
    dir,
    remove: () => {
      ChildProcess.execFileSync("git", ["worktree", "remove", "--force", dir], { stdio: "ignore" })
    }
  }
}

/**
 * A database of its own on a PostgreSQL server, created for one bench run and dropped after: on BENCH_DATABASE_URL's
 * server, or when that is unset on the local one (LOCAL_SERVER, PostgreSQL's usual port) if it answers within 2 s.
 * BENCH_SERVER=0 skips the server figures. Undefined (with a notice) when there is no server to use; `on` names the
 * server to use, and then a failure throws.
 */
export const LOCAL_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"
export const freshDatabase = async (label: string, on?: string) => {
  const url = on ?? process.env.BENCH_DATABASE_URL ?? LOCAL_SERVER
  if (on === undefined && process.env.BENCH_SERVER === "0") return undefined
  const name = `shoal_bench_${label}_${Date.now()}`
  const query = async (text: string) => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
    await c.connect()
    try {
      await c.query(text)
    } finally {
      await c.end()
    }
  }
  try {
    await query(`CREATE DATABASE ${name}`)
  } catch (e) {
    if (on !== undefined) throw e
    console.log(`  no PostgreSQL server at ${new URL(url).host} (${(e as Error).message}): its figure is skipped`)
    return undefined
  }
  const own = new URL(url)
  own.pathname = `/${name}`
  return { url: own.toString(), drop: () => query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

/** What `alternatingSlices` measured of one server: mean req/s, worst p99, server CPU per request as text. */
export interface SliceSummary {
  readonly mean: number
  readonly p99: number
  /** `  server CPU N µs/request`, or "" where /proc is not available */
  readonly cpu: string
  readonly failures: number
}

/**
 * The baseline and the target loaded in `slices` alternating slices over `duration` seconds, so a machine loaded by
 * something else weighs on both alike, with each server's CPU per request (user + system, from /proc): steadier than
 * requests/s on a loaded machine.
 */
export const alternatingSlices = async (options: {
  readonly duration: number
  readonly slices: number
  readonly base: { readonly pid: number | undefined; readonly run: (seconds: number) => Promise<autocannon.Result> }
  readonly target: { readonly pid: number | undefined; readonly run: (seconds: number) => Promise<autocannon.Result> }
}) => {
  const runs = { base: [] as Array<autocannon.Result>, target: [] as Array<autocannon.Result> }
  const cpu = { base: 0, target: 0 }
  const s = Math.max(1, Math.round(options.duration / options.slices))
  for (let i = 0; i < options.slices; i++) {
    for (const side of ["base", "target"] as const) {
      const c0 = cpuMs(options[side].pid)
      runs[side].push(await options[side].run(s))
      const c1 = cpuMs(options[side].pid)
      if (c0 !== undefined && c1 !== undefined) cpu[side] += c1 - c0
    }
  }
  const summary = (rs: Array<autocannon.Result>, ms: number): SliceSummary => ({
    mean: rs.reduce((a, r) => a + r.requests.average, 0) / rs.length,
    p99: Math.max(...rs.map((r) => r.latency.p99)),
    cpu: ms > 0
      ? `  server CPU ${(ms * 1000 / rs.reduce((a, r) => a + r.requests.total, 0)).toFixed(0)} µs/request`
      : "",
    failures: rs.reduce((a, r) => a + r.non2xx + r.errors, 0)
  })
  return { base: summary(runs.base, cpu.base), target: summary(runs.target, cpu.target) }
}

/** One figure of a bench beside its goal, for the summary `npm run bench` prints at the end. */
export interface Figure {
  readonly bench: string
  readonly measure: string
  /** the figure and its baseline as printed, e.g. "4,618 vs 6,401 req/s" */
  readonly value: string
  /** the figure the goal is about, e.g. 0.72 (a ratio) or 196 (MB) */
  readonly figure: number
  readonly goal: { readonly atLeast: number } | { readonly atMost: number }
  /** how the figure prints, "×" by default */
  readonly unit?: string
}

const figures: Array<Figure> = []

/** Records a figure for the summary. */
export const report = (figure: Figure) => void figures.push(figure)

export const met = (f: Figure) => "atLeast" in f.goal ? f.figure >= f.goal.atLeast : f.figure <= f.goal.atMost

/** Every figure reported so far beside its goal, as a table. */
export const summary = (): string => {
  const unit = (f: Figure, n: number) => (f.unit ?? "×") === "×" ? `${n.toFixed(2)}×` : `${n} ${f.unit}`
  const rows = figures.map((f) => [
    f.bench,
    f.measure,
    f.value,
    unit(f, f.figure),
    "atLeast" in f.goal ? `≥ ${unit(f, f.goal.atLeast)}` : `≤ ${unit(f, f.goal.atMost)}`,
    met(f) ? "met" : "NOT MET"
  ])
  const header = ["bench", "measure", "figure vs baseline", "result", "goal", ""]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (r: ReadonlyArray<string>) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(header), ...rows.map(line)].join("\n")
}

/**
 * A command line's words and options: `--x value` and `--x=value` set option x; `--x` followed by another option or
 * by nothing is `"true"`; every other word is kept, in order (bench names, file paths).
 */
export const parseArgs = (argv: ReadonlyArray<string>) => {
  const words: Array<string> = []
  const options: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith("--")) {
      words.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    if (eq > 0) options[arg.slice(2, eq)] = arg.slice(eq + 1)
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith("--")) options[arg.slice(2)] = argv[++i]!
    else options[arg.slice(2)] = "true"
  }
  return { words, options }
}
