// `npm run bench -- fleet [--agents N] [--rate R] [--nodes K] [--seconds S] [--balancer haproxy] [--kill true]`
// (issue 46): N simulated agents, each with a WebSocket (resumed by cursor after a drop) and the spec's routine at R
// requests an hour (default 20: 4 heartbeats, 1 Wave check-in, 2 schedule reads, 6 task updates and comments, 2
// posts, 4 DMs, 1 transfer), spread evenly over time; events fan out to followers (posts mention them, DMs and
// transfers go to them) and to project members (task comments reach the task's creator and assignee).
//
// Shoal runs as `npm start` runs it (the bundle, its V8 flags) on a fresh database of the local PostgreSQL server
// (BENCH_DATABASE_URL names another server), K processes on that one database. Setup is direct SQL, as the fanout
// bench's server seeds its agents: N agents with keys, a follow graph (agent i follows the next `--follows`, 5),
// projects of `--group` (8) members each, one task per agent (created by it, assigned to the next member), and a
// million Gems each (one minting transaction through the double-entry ledger).
//
// The agents run in client processes (bench/fleet-clients.ts), each from its own loopback source address (127.0.0.2,
// 127.0.0.3 …). A process may hold at most `ulimit -Hn` files (20,000 here; hard): the bench prints it and plans
// around it (≤ ~18,000 sockets a client process; more agents than one server process's share start more Shoal
// processes, each agent connecting to one of them directly).
//
// `--nodes K --balancer haproxy` (the default when K > 1): the K nodes sit behind HAProxy (Debian's, started as a
// child with a generated config: WebSocket tunnels, health checks on /health, maxconn from the file limit; two
// sockets per agent there, so ≤ ~9,000 agents), the agents connect through its one address, and halfway through the
// steady state one node is killed with SIGKILL (`--kill false` to skip): the agents that were on it reconnect
// through the balancer with `?after=<cursor>`, and every write the bench made is checked against what reached each
// of its recipients — none lost, none twice.
//
// Figures: API p50/p99 (client-measured, by kind), event delivery p50/p99 (the write's send → the recipient's
// frame), errors (HTTP ≥ 500, 429 apart, other 4xx, network errors, socket drops), RSS and CPU per server process
// (from /proc; `GET /metrics` is read when the server has it), memory per connected agent (RSS after connect −
// before, / agents on that process). Appended to bench/fleet-results.json; bench/fleet-plot.ts draws them.
//
// What bounds a run: CPU over the steady state of every process the bench started (Shoal, clients, HAProxy), of
// PostgreSQL's backends (this run's database, the server's other databases, its background processes; pids from
// pg_stat_activity, times from /proc) and of the whole machine (/proc/stat: what is left is other work on the box);
// the clients' own event-loop delay and how late their requests left (client lag, not server latency); this
// database's backends by state and wait event (lock waits, idle in transaction), its connections against
// max_connections, each node's database-pool waiters (/metrics); the first 5xx bodies and each node's first error
// lines. Every child is killed when the bench ends, however it ends.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import pg from "pg"
import { generateKey, hashKey } from "../src/Auth/Keys.js"
import { groupOf, nextInGroup, type Plan, ROUTINE } from "./fleet-clients.js"
import { freePort, freshDatabase, npmStartFlags, parseArgs, report } from "./support.js"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Every child this bench started and that has not exited: killed with SIGKILL when the bench exits, however. */
const live = new Set<ChildProcess>()
process.on("exit", () => {
  for (const p of live) p.kill("SIGKILL")
})
for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
  process.once(signal, () => process.exit(code))
}

interface Child {
  readonly proc: ChildProcess
  readonly output: () => string
  /** its first lines that look like errors (logged ERROR/FATAL/WARN, an exception), kept however long it runs */
  readonly errorLines: ReadonlyArray<string>
  readonly next: (type: string, timeoutMs?: number) => Promise<any>
  readonly stop: () => Promise<void>
}

/** A process started through `sh` with its file limit raised to the hard limit (`exec`: the pid is the program's). */
const spawnChild = (command: string, env: Record<string, string>, ipc = false): Child => {
  const proc = spawn("sh", ["-c", `ulimit -n $(ulimit -Hn) 2>/dev/null; exec ${command}`], {
    env: { ...process.env, ...env },
    stdio: ipc ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"]
  })
  live.add(proc)
  proc.on("exit", () => live.delete(proc))
  let out = ""
  const errorLines: Array<string> = []
  const keep = (d: Buffer) => {
    if (errorLines.length < 5) {
      for (const line of d.toString().split("\n")) {
        if (errorLines.length < 5 && /level=(ERROR|FATAL|WARN)|Error\b|ECONN|too many/.test(line)) {
          errorLines.push(line.slice(0, 400))
        }
      }
    }
    out += d
    if (out.length > 200_000) out = out.slice(-100_000)
  }
  proc.stdout!.on("data", keep)
  proc.stderr!.on("data", keep)
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
      if (Date.now() > until || proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(`no "${type}" from ${command.slice(0, 80)}:\n${out.slice(-2000)}`)
      }
      await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(500)])
    }
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve()
      proc.once("exit", () => resolve())
      proc.kill("SIGTERM")
      setTimeout(() => proc.kill("SIGKILL"), 10_000).unref()
    })
  return { proc, output: () => out, errorLines, next, stop }
}

const waitUp = async (url: string, child: Child, ms = 180_000) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok) return
    } catch {
      // not up yet
    }
    if (child.proc.exitCode !== null) break
    await sleep(200)
  }
  throw new Error(`${url} did not come up:\n${child.output().slice(-3000)}`)
}

const cpuMs = (pid: number) => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return NaN
  }
}
const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024
  } catch {
    return NaN
  }
}

/** ms a process's main thread has waited for a CPU while runnable (/proc/<pid>/schedstat): starved, not idle. */
const runQueueMs = (pid: number) => {
  try {
    return Number(Fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e6
  } catch {
    return NaN
  }
}

/** The kernel's count of connections dropped because a listen queue was full (TcpExt ListenOverflows). */
const listenOverflows = () => {
  try {
    const lines = Fs.readFileSync("/proc/net/netstat", "utf8").split("\n").filter((l) => l.startsWith("TcpExt:"))
    const names = lines[0]!.split(/\s+/)
    const values = lines[1]!.split(/\s+/)
    return Number(values[names.indexOf("ListenOverflows")])
  } catch {
    return NaN
  }
}

/**
 * The scheduler's autogroups (kernel.sched_autogroup_enabled): with them, each session (a terminal, an agent's shell)
 * gets an equal share of the CPUs whatever its processes' `nice`, which only orders processes within a session. A
 * fleet started with `nice -n -10` beside two busy sessions still gets a third of the machine: its processes show low
 * CPU and long run-queue waits, starved rather than idle. `BENCH_AUTOGROUP_NICE=-10` (root) sets the nice of this
 * session's autogroup, which the bench's children share; either way the bench prints its autogroup and how many
 * other autogroups have runnable processes.
 */
const autogroup = () => {
  const read = (pid: string) => {
    try {
      return Fs.readFileSync(`/proc/${pid}/autogroup`, "utf8").trim()
    } catch {
      return undefined
    }
  }
  const own = read("self")
  if (own === undefined) return
  const wanted = process.env.BENCH_AUTOGROUP_NICE
  if (wanted !== undefined && wanted !== "") {
    try {
      Fs.writeFileSync("/proc/self/autogroup", wanted)
      // the autogroup is the session's: its nice is put back when the bench exits
      const was = /nice (-?\d+)/.exec(own)?.[1] ?? "0"
      process.on("exit", () => Fs.writeFileSync("/proc/self/autogroup", was))
    } catch (e) {
      console.log(`  could not set this session's autogroup nice to ${wanted}: ${(e as Error).message}`)
    }
  }
  const ownName = own.split(" ")[0]
  const others = new Set<string>()
  for (const pid of Fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "R") continue
      const group = read(pid)?.split(" ")[0]
      if (group !== undefined && group !== ownName) others.add(group)
    } catch {
      // gone
    }
  }
  console.log(
    `  scheduler: this session's ${read("self")}; other autogroups with runnable processes now: ${others.size}` +
      (others.size > 0 ? " (each gets an equal share of the CPUs; `nice` does not reach across them)" : "")
  )
}

/**
 * PostgreSQL's backends for the bench's database are part of what is measured: each is a session (an autogroup) of
 * its own, so with BENCH_AUTOGROUP_NICE the bench's session (Shoal and the clients) would outweigh each of them ten
 * to one, and a backend holding the event-order lock would wait for a CPU while the Shoal processes run. Each backend
 * seen serving the bench's database gets the same autogroup nice (at the next 5 s sample after it connects).
 */
const niced = new Set<number>()
const shareNice = (pid: number) => {
  const wanted = process.env.BENCH_AUTOGROUP_NICE
  if (wanted === undefined || wanted === "" || niced.has(pid)) return
  niced.add(pid)
  try {
    Fs.writeFileSync(`/proc/${pid}/autogroup`, wanted)
  } catch {
    // gone, or not ours to set
  }
}

/** The machine's busy and total CPU time (ms, all cores) from /proc/stat. */
const machineCpu = () => {
  const f = Fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0)
  return { busy: (total - f[3]! - f[4]!) * 10, total: total * 10 }
}

/**
 * CPU time per group of processes, from /proc each sample: a pid's growth between samples counts to its group, and a
 * pid first seen after the first sample counts whole (it was born during the run: a new database connection).
 */
const cpuGroups = () => {
  const last = new Map<number, number>()
  const lastWait = new Map<number, number>()
  const total: Record<string, number> = {}
  const waited: Record<string, number> = {}
  const pids: Record<string, Set<number>> = {}
  let first = true
  return {
    sample: (groups: Record<string, ReadonlyArray<number>>) => {
      for (const [group, list] of Object.entries(groups)) {
        total[group] ??= 0
        waited[group] ??= 0
        pids[group] ??= new Set()
        for (const pid of list) {
          const w = runQueueMs(pid)
          const prevWait = lastWait.get(pid)
          if (Number.isFinite(w)) {
            if (prevWait !== undefined) waited[group] += w - prevWait
            lastWait.set(pid, w)
          }
          const ms = cpuMs(pid)
          if (!Number.isFinite(ms)) continue
          const prev = last.get(pid)
          if (prev !== undefined) total[group] += ms - prev
          else if (!first) total[group] += ms
          last.set(pid, ms)
          pids[group].add(pid)
        }
      }
      first = false
    },
    total,
    waited,
    pids
  }
}

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  if (xs.length === 0) return NaN
  const s = Float64Array.from(xs).sort()
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!
}

/** `GET /metrics` in the Prometheus text format, when the server has it: the samples by series name (labels kept). */
const readMetrics = async (base: string): Promise<Record<string, number> | undefined> => {
  try {
    const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(2_000) })
    if (!res.ok || !(res.headers.get("content-type") ?? "").includes("text/plain")) return undefined
    const out: Record<string, number> = {}
    for (const line of (await res.text()).split("\n")) {
      if (line.startsWith("#") || line.trim() === "") continue
      const at = line.lastIndexOf(" ")
      out[line.slice(0, at)] = Number(line.slice(at + 1))
    }
    return out
  } catch {
    return undefined
  }
}

const fileLimit = () => {
  try {
    return Number(execFileSync("sh", ["-c", "ulimit -Hn"]).toString().trim())
  } catch {
    return 1024
  }
}

/** Sets up N agents, follows, projects, tasks and Gems straight in the database (migrations already applied). */
const seed = async (url: string, n: number, follows: number, groupSize: number) => {
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    const t0 = Date.now()
    await db.query("BEGIN")
    const owner = (await db.query(`INSERT INTO users (handle, user_type, display_name)
      VALUES ('fleetowner', 'human', 'Fleet Owner') RETURNING id`)).rows[0].id as string
    const agents = (await db.query(
      `INSERT INTO users (handle, user_type, display_name, owner_id)
       SELECT 'fa' || g, 'agent', 'Fleet ' || g, $1 FROM generate_series(0, $2 - 1) g ORDER BY g RETURNING id, handle`,
      [owner, n]
    )).rows as Array<{ id: string; handle: string }>
    agents.sort((a, b) => Number(a.handle.slice(2)) - Number(b.handle.slice(2)))
    const ids = agents.map((a) => a.id)
    const keys = agents.map(() => generateKey())
    await db.query(`INSERT INTO api_keys (key_hash, user_id) SELECT * FROM unnest($1::text[], $2::uuid[])`, [
      keys.map(hashKey),
      ids
    ])
    // i follows i+1 … i+follows
    const fFrom: Array<string> = []
    const fTo: Array<string> = []
    for (let i = 0; i < n; i++) {
      for (let j = 1; j <= Math.min(follows, n - 1); j++) {
        fFrom.push(ids[i]!)
        fTo.push(ids[(i + j) % n]!)
      }
    }
    await db.query(
      `INSERT INTO follows (follower_id, followee_id, created_at) SELECT a, b, now() FROM unnest($1::uuid[], $2::uuid[]) t(a, b)`,
      [fFrom, fTo]
    )
    // projects: one per group, its first member the owner; every member consented (joined)
    const groups = Math.max(1, Math.floor(n / groupSize))
    const owners = Array.from({ length: groups }, (_, g) => ids[g * groupSize]!)
    const projects = (await db.query(
      `INSERT INTO projects (owner_id, title, visibility, created_at, updated_at)
       SELECT o, 'fleet project ' || ord, 'private', now(), now() FROM unnest($1::uuid[]) WITH ORDINALITY t(o, ord)
       ORDER BY ord RETURNING id, title`,
      [owners]
    )).rows as Array<{ id: string; title: string }>
    projects.sort((a, b) => Number(a.title.split(" ")[2]) - Number(b.title.split(" ")[2]))
    const projectOf = (i: number) => projects[Math.floor(groupOf(i, n, groupSize).from / groupSize)]!.id
    await db.query(
      `INSERT INTO project_members (project_id, user_id, role, created_at, consented)
       SELECT p, u, r, now(), true FROM unnest($1::uuid[], $2::uuid[], $3::text[]) t(p, u, r)`,
      [
        ids.map((_, i) => projectOf(i)),
        ids,
        ids.map((_, i) => groupOf(i, n, groupSize).from === i ? "owner" : "member")
      ]
    )
    const tasks = (await db.query(
      `INSERT INTO tasks (project_id, created_by, title, status, assigned_to_id, created_at, updated_at)
       SELECT p, c, 'fleet task ' || ord, 'in_progress', a, now(), now()
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) WITH ORDINALITY t(p, c, a, ord) ORDER BY ord
       RETURNING id, title`,
      [ids.map((_, i) => projectOf(i)), ids, ids.map((_, i) => ids[nextInGroup(i, n, groupSize)]!)]
    )).rows as Array<{ id: string; title: string }>
    tasks.sort((a, b) => Number(a.title.split(" ")[2]) - Number(b.title.split(" ")[2]))
    // a million Gems each, minted in one transaction of the double-entry ledger
    const gems = 1_000_000
    const tx = (await db.query(
      `INSERT INTO gem_transactions (source, actor_id, note, created_at) VALUES ('award', $1, 'fleet bench', now())
       RETURNING id, seq`,
      [owner]
    )).rows[0] as { id: string; seq: string }
    await db.query(
      `WITH upd AS (
         UPDATE gem_accounts SET balance = balance + $1::bigint, credited = credited + $1::bigint
         WHERE user_id = ANY($2::uuid[]) AND kind = 'available' RETURNING id),
       mint AS (
         UPDATE gem_accounts SET balance = balance - $1::bigint * (SELECT count(*) FROM upd),
           debited = debited + $1::bigint * (SELECT count(*) FROM upd)
         WHERE kind = 'mint' AND user_id IS NULL RETURNING id, $1::bigint * (SELECT count(*) FROM upd) AS total)
       INSERT INTO gem_entries (transaction_id, txn_seq, account_id, amount)
       SELECT $3::uuid, $4::bigint, id, $1::bigint FROM upd UNION ALL SELECT $3::uuid, $4::bigint, id, -total FROM mint`,
      [gems, ids, tx.id, tx.seq]
    )
    await db.query("COMMIT")
    await db.query("ANALYZE")
    return {
      ms: Date.now() - t0,
      agents: agents.map((a, i) => ({ id: a.id, handle: a.handle, key: keys[i]!, task: tasks[i]!.id }))
    }
  } finally {
    await db.end()
  }
}

interface Watched {
  /** CPU ms per group over the watch */
  readonly cpu: Record<string, number>
  /** ms the group's main threads waited for a CPU while runnable: a process starved by the machine shows it here */
  readonly runQueue: Record<string, number>
  /** connections the kernel dropped because a listen queue was full (the whole machine) */
  readonly listenOverflows: number
  /** how many pids each group had (PostgreSQL's come and go) */
  readonly pids: Record<string, number>
  readonly machineBusyMs: number
  readonly machineTotalMs: number
  readonly ms: number
  /** this database's backends, by state and wait event, summed over samples (each sample 5 s) */
  readonly waits: Record<string, number>
  readonly samples: number
  readonly maxConnections: number
  /** the most connections seen at once: to this database, and to the whole server */
  readonly connectionsPeak: { readonly ours: number; readonly all: number }
  /** per node, the most callers seen waiting for a database connection (`/metrics`) */
  readonly poolWaitingPeak: ReadonlyArray<number>
  readonly poolTotalPeak: ReadonlyArray<number>
}

/**
 * Watches what may bound a phase of the run, sampling every 5 s until `stop`: CPU of the bench's processes
 * (`groups()`, re-read each sample), of PostgreSQL's processes by kind, and of the machine; this database's backends
 * by wait event; connections against max_connections; each node's pool waiters.
 */
const watch = (url: string, nodes: ReadonlyArray<Node>, groups: () => Record<string, ReadonlyArray<number>>) => {
  const ours = new URL(url).pathname.slice(1)
  const cpu = cpuGroups()
  const m0 = machineCpu()
  const overflows0 = listenOverflows()
  const t0 = Date.now()
  const waits: Record<string, number> = {}
  const peak = { ours: 0, all: 0 }
  const poolWaitingPeak = nodes.map(() => 0)
  const poolTotalPeak = nodes.map(() => 0)
  let samples = 0
  let maxConnections = NaN
  let stopped = false
  const mon = new pg.Client({ connectionString: url, application_name: "fleet-bench-monitor" })
  // a connection the server ends (an administrator's command, a restart) only ends the PostgreSQL figures
  mon.on("error", () => undefined)
  const sample = async () => {
    const rows = (await mon.query(
      `SELECT pid, datname, backend_type, state, wait_event_type, wait_event FROM pg_stat_activity
       WHERE pid <> pg_backend_pid()`
    )).rows as Array<
      {
        pid: number
        datname: string | null
        backend_type: string
        state: string | null
        wait_event_type: string | null
        wait_event: string | null
      }
    >
    const pgGroups: Record<string, Array<number>> = { "pg this db": [], "pg other dbs": [], "pg background": [] }
    let oursNow = 0
    for (const r of rows) {
      const group = r.datname === ours ? "pg this db" : r.datname !== null ? "pg other dbs" : "pg background"
      pgGroups[group]!.push(r.pid)
      if (r.datname !== ours) continue
      shareNice(r.pid)
      oursNow++
      if (r.state === "idle") continue
      const key = `${r.state}: ${r.wait_event_type === null ? "on CPU" : `${r.wait_event_type}/${r.wait_event}`}`
      waits[key] = (waits[key] ?? 0) + 1
    }
    peak.ours = Math.max(peak.ours, oursNow + 1)
    peak.all = Math.max(peak.all, rows.length + 1)
    cpu.sample({ ...groups(), ...pgGroups })
    await Promise.all(nodes.map(async (node, k) => {
      if (node.killed) return
      const m = await readMetrics(node.api)
      if (m === undefined) return
      for (const [series, v] of Object.entries(m)) {
        if (!series.startsWith("shoal_db_pool_connections")) continue
        if (series.includes("waiting")) poolWaitingPeak[k] = Math.max(poolWaitingPeak[k]!, v)
        if (series.includes("total")) poolTotalPeak[k] = Math.max(poolTotalPeak[k]!, v)
      }
    }))
    samples++
  }
  const loop = (async () => {
    await mon.connect()
    maxConnections = Number((await mon.query("SHOW max_connections")).rows[0].max_connections)
    while (!stopped) {
      await sample().catch(() => undefined)
      for (let i = 0; i < 50 && !stopped; i++) await sleep(100)
    }
    await sample().catch(() => undefined)
  })()
  return {
    stop: async (): Promise<Watched> => {
      stopped = true
      await loop.catch(() => undefined)
      await mon.end().catch(() => undefined)
      const m1 = machineCpu()
      return {
        cpu: cpu.total,
        runQueue: cpu.waited,
        listenOverflows: listenOverflows() - overflows0,
        pids: Object.fromEntries(Object.entries(cpu.pids).map(([g, set]) => [g, set.size])),
        machineBusyMs: m1.busy - m0.busy,
        machineTotalMs: m1.total - m0.total,
        ms: Date.now() - t0,
        waits,
        samples,
        maxConnections,
        connectionsPeak: peak,
        poolWaitingPeak,
        poolTotalPeak
      }
    }
  }
}

const printWatch = (title: string, w: Watched) => {
  const pct = (ms: number) => ((100 * ms) / w.ms).toFixed(0)
  const known = Object.values(w.cpu).reduce((a, b) => a + b, 0)
  const cores = Os.cpus().length
  console.log(
    `${title} CPU % of one core over ${(w.ms / 1000).toFixed(0)} s: ` +
      Object.entries(w.cpu).map(([g, ms]) => `${g} ${pct(ms)}${w.pids[g]! > 1 ? ` (${w.pids[g]} pids)` : ""}`)
        .join(", ") +
      `; machine ${((100 * cores * w.machineBusyMs) / w.machineTotalMs).toFixed(0)} of ${cores * 100} ` +
      `(other work ${
        Math.max(0, (100 * cores * w.machineBusyMs) / w.machineTotalMs - (100 * known) / w.ms).toFixed(0)
      })` +
      `, load average ${Os.loadavg().map((x) => x.toFixed(1)).join(" ")}`
  )
  console.log(
    `    waiting for a CPU while runnable (main thread, % of the time): ` +
      Object.entries(w.runQueue).filter(([g]) => g !== "pg other dbs" && g !== "pg background").map(([g, ms]) =>
        `${g} ${pct(ms)}`
      ).join(", ") +
      `; connections dropped on a full listen queue: ${w.listenOverflows}`
  )
  const waits = Object.entries(w.waits).sort((a, b) => b[1] - a[1]).slice(0, 6)
  console.log(
    `    PostgreSQL: this database's non-idle backends per sample: ${
      waits.map(([k, n]) => `${k} ${(n / Math.max(1, w.samples)).toFixed(1)}`).join(", ") || "none"
    }; connections peak ${w.connectionsPeak.ours} here, ${w.connectionsPeak.all} on the server, ` +
      `max_connections ${w.maxConnections}; pool per node peak open ${w.poolTotalPeak.join("/")}, waiting ${
        w.poolWaitingPeak.join("/")
      }`
  )
}

interface Node {
  readonly name: string
  readonly api: string
  readonly wallet: string
  readonly child: Child
  readonly pid: number
  killed: boolean
}

const startNode = async (name: string, database: string, dataDir: string): Promise<Node> => {
  const [port, walletPort] = [await freePort(), await freePort()]
  // BENCH_NODE_ARGS and BENCH_PROFILE as for the other benches (bench/support.ts): more node flags, a CPU profile
  const extra = [
    ...(process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter((a) => a !== ""),
    ...(process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${Path.resolve(process.env.BENCH_PROFILE)}`] : [])
  ]
  const child = spawnChild(`"${process.execPath}" ${[...npmStartFlags, ...extra].join(" ")} build/server/main.js`, {
    DATABASE_URL: database,
    DATA_DIR: Path.join(dataDir, name),
    HOST: "127.0.0.1",
    PORT: String(port),
    WALLET_PORT: String(walletPort),
    DNS_PORT: "0",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // the fleet's sockets and its HTTP pools all come from a few loopback addresses (or the balancer's one): no
    // per-address cap, and no cap under the process's file limit
    HTTP_MAX_CONNECTIONS: "0",
    HTTP_MAX_CONNECTIONS_PER_IP: "0"
  })
  Fs.mkdirSync(Path.join(dataDir, name), { recursive: true })
  if (process.env.BENCH_SERVER_OUT) {
    const file = Fs.createWriteStream(`${process.env.BENCH_SERVER_OUT}.${child.proc.pid}`)
    child.proc.stdout!.pipe(file)
    child.proc.stderr!.pipe(file)
  }
  return {
    name,
    api: `http://127.0.0.1:${port}`,
    wallet: `http://127.0.0.1:${walletPort}`,
    child,
    pid: child.proc.pid!,
    killed: false
  }
}

/** HAProxy in front of the nodes: its config, written to `dir`, and the process. */
const startHaproxy = async (nodes: ReadonlyArray<Node>, dir: string, limit: number) => {
  const [apiPort, walletPort] = [await freePort(), await freePort()]
  // two file descriptors per proxied connection (client side, server side) and some for listeners and checks
  const maxconn = Math.floor((limit - 200) / 2)
  const servers = (pick: (n: Node) => string) =>
    nodes.map((n) => {
      const u = new URL(pick(n))
      const check = new URL(n.api).port
      // health-checked on the agent API's /health (the wallet's port is checked through it)
      return `  server ${n.name} 127.0.0.1:${u.port} check port ${check} inter 1s fastinter 250ms fall 3 rise 2 maxconn ${maxconn}`
    }).join("\n")
  const config = `global
  maxconn ${maxconn}
  ulimit-n ${limit}
  nbthread 1
  log stderr format raw local0 err

defaults
  mode http
  log global
  # a connection refused (a dead node not yet marked down) is retried at once on another node, not on the same
  retries 2
  option redispatch 1
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # a WebSocket is a tunnel once upgraded: longer than Shoal's 30 s ping, so only a dead peer times out
  timeout tunnel 1h
  timeout client-fin 5s
  timeout http-keep-alive 60s
  # a check waits up to 5 s: on a loaded machine a live node's /health can take over a second, and a node marked
  # down for it would send its share of the fleet to the others at once. A killed node refuses connections (the
  # check fails at once) and its sockets are reset by the kernel: nothing to shut down from here
  timeout check 5s
  option httpchk GET /health
  http-check expect status 200

frontend api
  bind 127.0.0.1:${apiPort}
  default_backend shoal_api

backend shoal_api
  # the fleet's sockets are long-lived: the node with fewest takes the next
  balance leastconn
${servers((n) => n.api)}

frontend wallet
  bind 127.0.0.1:${walletPort}
  default_backend shoal_wallet

backend shoal_wallet
  balance leastconn
${servers((n) => n.wallet)}
`
  const file = Path.join(dir, "haproxy.cfg")
  Fs.writeFileSync(file, config)
  execFileSync("haproxy", ["-c", "-q", "-f", file])
  const child = spawnChild(`haproxy -db -f ${file}`, {})
  return { child, api: `http://127.0.0.1:${apiPort}`, wallet: `http://127.0.0.1:${walletPort}`, file, maxconn }
}

export const run = async (options: Record<string, string> = {}): Promise<void> => {
  const num = (name: string, fallback: number) => (options[name] !== undefined ? Number(options[name]) : fallback)
  const agents = num("agents", 500)
  const rate = num("rate", 20)
  const seconds = num("seconds", 300)
  const warmup = num("warmup", 30)
  const follows = num("follows", 5)
  const groupSize = Math.max(3, num("group", 8))
  const limit = fileLimit()
  // a server process keeps ~2,000 files for itself (database pool, listeners, the HTTP pools' sockets)
  const perServer = limit - 2_000
  const perClient = Math.min(limit - 2_000, 18_000)
  const nodesOpt = options.nodes !== undefined ? Number(options.nodes) : Math.max(1, Math.ceil(agents / perServer))
  const balancer = options.balancer ?? (nodesOpt > 1 && options.nodes !== undefined ? "haproxy" : "none")
  const kill = balancer !== "none" && options.kill !== "false"
  const clientProcs = Math.max(2, Math.ceil(agents / perClient), num("clients", 0))
  console.log(
    `fleet bench: ${agents.toLocaleString()} agents at ${rate} requests/hour, ${seconds} s steady state; ` +
      `file limit ${limit} (ulimit -Hn) → ≤ ${perServer.toLocaleString()} agents a server process, ` +
      `≤ ${perClient.toLocaleString()} sockets a client process: ${nodesOpt} Shoal process(es), ` +
      `${clientProcs} client processes (127.0.0.2 … 127.0.0.${1 + clientProcs}), ` +
      `${balancer === "none" ? "agents connect to their node directly" : "behind HAProxy"}` +
      (kill ? ", one node SIGKILLed halfway" : "")
  )
  if (balancer !== "none" && agents * 2 > limit - 400) {
    console.log(`  note: ${agents} agents need ${agents * 2} files in the balancer, over its limit of ${limit}`)
  }
  if (Math.ceil(agents / nodesOpt) > perServer) {
    console.log(`  note: ${Math.ceil(agents / nodesOpt)} agents a node is over one process's share (${perServer})`)
  }
  execFileSync(process.execPath, ["scripts/build-server.mjs", "--if-stale"], { stdio: "inherit" })
  autogroup()

  const db = await freshDatabase(
    "fleet",
    process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  )
  if (db === undefined) throw new Error("the fleet bench needs a PostgreSQL server")
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-fleet-"))
  const children: Array<Child> = []
  try {
    // the first node migrates the new database; the others start once it is up
    const nodes: Array<Node> = [await startNode("n1", db.url, dir)]
    children.push(nodes[0]!.child)
    await waitUp(`${nodes[0]!.api}/health`, nodes[0]!.child)
    for (let k = 2; k <= nodesOpt; k++) {
      const node = await startNode(`n${k}`, db.url, dir)
      nodes.push(node)
      children.push(node.child)
    }
    await Promise.all(nodes.map((node) => waitUp(`${node.api}/health`, node.child)))
    const seeded = await seed(db.url, agents, follows, groupSize)
    console.log(
      `  setup: ${agents} agents with keys, ${agents * follows} follows, ${Math.floor(agents / groupSize)} projects, ` +
        `${agents} tasks, Gems for each, by direct SQL in ${(seeded.ms / 1000).toFixed(1)} s`
    )
    const plan: Plan = { agents: seeded.agents, follows, groupSize, rate }
    const planFile = Path.join(dir, "plan.json")
    Fs.writeFileSync(planFile, JSON.stringify(plan))

    const proxy = balancer === "none" ? undefined : await startHaproxy(nodes, dir, limit)
    if (proxy !== undefined) {
      children.push(proxy.child)
      await waitUp(`${proxy.api}/health`, proxy.child)
      console.log(`  HAProxy ${execFileSync("haproxy", ["-v"]).toString().split("\n")[0]}: maxconn ${proxy.maxconn}`)
    }
    // agent i → node i mod K directly, or everyone → the balancer
    const targets = proxy !== undefined
      ? [{ api: proxy.api, wallet: proxy.wallet }]
      : nodes.map((node) => ({ api: node.api, wallet: node.wallet }))
    const agentsOn = (node: number) =>
      proxy !== undefined ? agents / nodes.length : Math.ceil((agents - node) / nodes.length)

    // a settled baseline: RSS of each node with the fleet set up but no socket open
    await sleep(3_000)
    const before = nodes.map((node) => rssMb(node.pid))
    const metricsBefore = await readMetrics(nodes[0]!.api)

    const clients: Array<Child> = []
    const share = Math.ceil(agents / clientProcs)
    for (let c = 0; c < clientProcs; c++) {
      const from = c * share
      const to = Math.min(agents, from + share)
      if (from >= to) break
      const child = spawnChild(`"${process.execPath}" --import tsx bench/fleet-clients.ts`, {
        BENCH_PLAN: planFile,
        BENCH_FROM: String(from),
        BENCH_TO: String(to),
        BENCH_LOCAL: `127.0.0.${2 + c}`,
        BENCH_TARGETS: JSON.stringify(targets)
      }, true)
      clients.push(child)
      children.push(child)
    }
    await Promise.all(clients.map((c) => c.next("started", 60_000)))
    const groupsOf = () => ({
      ...Object.fromEntries(nodes.map((node) => [node.name, node.killed ? [] : [node.pid]])),
      ...Object.fromEntries(clients.map((c, k) => [`client ${k + 1}`, [c.proc.pid!]])),
      ...(proxy !== undefined ? { haproxy: [proxy.child.proc.pid!] } : {})
    })
    const connectStart = Date.now()
    const connectWatch = watch(db.url, nodes, groupsOf)
    // each client gives up waiting for its last `ready` frames after this, and says how many are missing
    const connectDeadline = num("connect-seconds", 300) * 1000
    for (const c of clients) c.proc.send({ type: "connect", deadlineMs: connectDeadline })
    const connectedMsgs = await Promise.all(clients.map((c) => c.next("connected", connectDeadline + 30_000)))
    const connectMs = Date.now() - connectStart
    const missing = connectedMsgs.reduce((a, m) => a + (m.missing ?? 0), 0)
    console.log(
      `  connected: ${agents - missing} of ${agents} sockets ready in ${(connectMs / 1000).toFixed(1)} s` +
        (missing > 0 ? ` (gave up waiting for ${missing}: they keep trying)` : "")
    )
    const connectWatched = await connectWatch.stop()
    printWatch("  during the connect:", connectWatched)
    await sleep(5_000)
    const after = nodes.map((node) => rssMb(node.pid))

    // the routine starts; its first `warmup` seconds are not measured (every kind of request compiled and its
    // connections open after a connect that exercised only the sockets), then the steady state is
    const begin = Date.now() + 1_000
    const at = begin + warmup * 1000
    for (const c of clients) c.proc.send({ type: "go", at: begin, seconds: warmup + seconds, measureFrom: at })
    if (warmup > 0) {
      await sleep(Math.max(0, at - Date.now()))
      console.log(`  warm-up: the routine ran ${warmup} s, not measured (errors, losses and duplicates still count)`)
    }
    // steady state
    const cpu0 = nodes.map((node) => cpuMs(node.pid))
    const steadyWatch = watch(db.url, nodes, groupsOf)
    const samples: Array<{ t: number; rss: Array<number>; load: number }> = []
    let killedAt: number | undefined
    let killedNode: Node | undefined
    const cpuAtKill: Array<number> = []
    const end = at + seconds * 1000
    const sampler = setInterval(() => {
      samples.push({ t: Date.now() - at, rss: nodes.map((node) => rssMb(node.pid)), load: Os.loadavg()[0]! })
    }, 5_000)
    try {
      if (kill) {
        await sleep(Math.max(0, at + (seconds * 1000) / 2 - Date.now()))
        killedNode = nodes[nodes.length - 1]!
        cpuAtKill.push(...nodes.map((node) => cpuMs(node.pid)))
        killedNode.child.proc.kill("SIGKILL")
        killedNode.killed = true
        killedAt = Date.now()
        for (const c of clients) c.proc.send({ type: "phase" })
        console.log(`  killed ${killedNode.name} (SIGKILL) at ${((killedAt - at) / 1000).toFixed(0)} s`)
        // how many are down, every second, until all are back (at most to the end of the run)
        const downs: Array<string> = []
        while (Date.now() < end) {
          await sleep(1_000)
          for (const c of clients) c.proc.send({ type: "status" })
          const st = await Promise.all(clients.map((c) => c.next("status", 30_000)))
          const down = st.reduce((a, s) => a + s.down, 0)
          downs.push(String(down))
          if (down === 0 && Date.now() - killedAt > 3_000) break
        }
        console.log(`    agents without a socket, each second after the kill: ${downs.join(" ")}`)
      }
      await sleep(Math.max(0, end - Date.now()))
    } finally {
      clearInterval(sampler)
    }
    const steadyMs = Date.now() - at
    const steadyWatched = await steadyWatch.stop()
    // what bounded the steady state, printed before the clients' reports: a client too starved to report in time
    // still leaves this
    printWatch("  steady state:", steadyWatched)
    const cpu1 = nodes.map((node, k) => node.killed ? cpuAtKill[k]! : cpuMs(node.pid))
    const final = nodes.map((node) => node.killed ? NaN : rssMb(node.pid))
    const metrics = await Promise.all(nodes.map((node) => node.killed ? undefined : readMetrics(node.api)))
    for (const c of clients) c.proc.send({ type: "stop" })
    await Promise.all(clients.map((c) => c.next("stopped", 60_000)))
    // in-flight requests finish (an overloaded server answers writes a minute late) and their events arrive: wait
    // until no request is in flight and no keyed event has arrived for 8 s (15 s after a kill), at most 3 minutes,
    // so a delivery counted lost did not arrive in that time, rather than not yet
    const settleFrom = Date.now()
    let lastArrivals = -1
    let quietSince = Date.now()
    let pending = 0
    while (Date.now() - settleFrom < 180_000) {
      for (const c of clients) c.proc.send({ type: "status" })
      const st = await Promise.all(clients.map((c) => c.next("status", 30_000)))
      pending = st.reduce((a, s) => a + s.inFlight, 0)
      const arrivals = st.reduce((a, s) => a + s.arrivals, 0)
      if (arrivals !== lastArrivals || pending > 0) {
        lastArrivals = arrivals
        quietSince = Date.now()
      } else if (Date.now() - quietSince >= (kill ? 15_000 : 8_000)) break
      await sleep(1_000)
    }
    console.log(
      `  after the stop: ${((Date.now() - settleFrom) / 1000).toFixed(0)} s until every answer and event was in` +
        (pending > 0 ? ` (gave up with ${pending} requests still in flight)` : "")
    )
    for (const c of clients) c.proc.send({ type: "report" })
    // a client that does not report in time (starved, say) is left out, and said so: the others' figures still count
    const reports = (await Promise.all(clients.map((c, k) =>
      c.next("report", 120_000).catch(() => {
        console.log(`  client ${k + 1} sent no report within 120 s: its agents' requests and deliveries are left out`)
        return undefined
      })
    ))).filter((r) => r !== undefined)
    for (const c of clients) c.proc.send({ type: "close" })

    // ---- figures
    const byKind: Record<string, Array<number>> = {}
    for (const r of reports) {
      for (const [kind, xs] of Object.entries(r.latencies as Record<string, Array<number>>)) {
        ;(byKind[kind] ??= []).push(...xs)
      }
    }
    const all = Object.values(byKind).flat()
    // before the kill, when there was one: the steady state of K nodes, apart from the reconnect storm
    const allBefore = reports.flatMap((r) => Object.values(r.latenciesBefore as Record<string, Array<number>>).flat())
    const errors = { http5xx: 0, http429: 0, http4xx: 0, network: 0 }
    const firstErrors: Array<string> = []
    for (const r of reports) {
      for (const k of Object.keys(errors) as Array<keyof typeof errors>) errors[k] += r.errors[k]
      if (r.errors.firstError) firstErrors.push(r.errors.firstError)
    }
    const got = new Map<number, Map<string, number>>()
    for (const r of reports) for (const a of r.received) got.set(a.agent, new Map(a.got))
    let expected = 0
    let lost = 0
    let uncertain = 0
    let uncertainArrived = 0
    const delivery: Array<number> = []
    const deliveryBefore: Array<number> = []
    const lostSamples: Array<string> = []
    for (const r of reports) {
      for (const w of r.writes as Array<{ key: string; to: Array<number>; at: number; ok: boolean }>) {
        for (const to of w.to) {
          const arrived = got.get(to)?.get(w.key)
          if (!w.ok) {
            uncertain++
            if (arrived !== undefined) uncertainArrived++
            continue
          }
          expected++
          if (arrived === undefined) {
            lost++
            if (lostSamples.length < 10) lostSamples.push(`${w.key} → ${to}`)
          } else if (w.at >= at) {
            delivery.push(arrived - w.at)
            if (killedAt !== undefined && w.at < killedAt) deliveryBefore.push(arrived - w.at)
          }
        }
      }
    }
    // the writes sent to an agent while it had no socket (between its drop and its new `ready`): they can only
    // have reached it through the resume by cursor
    const gaps = new Map<number, Array<{ closedAt: number; readyAt: number }>>()
    for (const r of reports) {
      for (const x of r.reconnects as Array<{ agent: number; closedAt: number; readyAt: number }>) {
        gaps.set(x.agent, [...(gaps.get(x.agent) ?? []), x])
      }
    }
    let whileAway = 0
    let whileAwayArrived = 0
    for (const r of reports) {
      for (const w of r.writes as Array<{ key: string; to: Array<number>; at: number; ok: boolean }>) {
        if (!w.ok) continue
        for (const to of w.to) {
          if ((gaps.get(to) ?? []).some((g) => w.at >= g.closedAt && w.at <= g.readyAt)) {
            whileAway++
            if (got.get(to)?.has(w.key)) whileAwayArrived++
          }
        }
      }
    }
    const sum = (f: (r: any) => number) => reports.reduce((a, r) => a + f(r), 0)
    const duplicates = sum((r) => r.duplicates)
    const duplicateIds = sum((r) => r.duplicateIds)
    const drops = sum((r) => r.drops)
    const reconnects = reports.flatMap((r) => r.reconnects as Array<{ closedAt: number; readyAt: number }>)
    const reconnectMs = reconnects.map((x) => x.readyAt - x.closedAt)
    const backWithin30 = killedAt === undefined
      ? undefined
      : reconnects.filter((x) => x.readyAt - killedAt! <= 30_000).length
    const cpuPct = nodes.map((node, k) => (100 * (cpu1[k]! - cpu0[k]!)) / (node.killed ? killedAt! - at : steadyMs))
    const memPerAgentKb = nodes.map((_, k) => ((after[k]! - before[k]!) * 1024) / agentsOn(k))
    const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "—")
    const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "—")

    console.log(`  steady state ${(steadyMs / 1000).toFixed(0)} s, load average ${Os.loadavg()[0]!.toFixed(1)}`)
    console.log(`  ${"request".padEnd(10)} ${"count".padStart(7)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}`)
    for (const kind of [...new Set(ROUTINE)]) {
      const xs = byKind[kind] ?? []
      console.log(
        `  ${kind.padEnd(10)} ${String(xs.length).padStart(7)} ${f1(percentile(xs, 50)).padStart(8)} ${
          f1(percentile(xs, 99)).padStart(8)
        }`
      )
    }
    console.log(
      `  ${"all".padEnd(10)} ${String(all.length).padStart(7)} ${f1(percentile(all, 50)).padStart(8)} ${
        f1(percentile(all, 99)).padStart(8)
      }`
    )
    if (killedAt !== undefined) {
      console.log(
        `  before the kill: API p50 ${f1(percentile(allBefore, 50))} ms, p99 ${f1(percentile(allBefore, 99))} ms ` +
          `(${allBefore.length} requests); delivery p50 ${f0(percentile(deliveryBefore, 50))} ms, p99 ${
            f0(percentile(deliveryBefore, 99))
          } ms`
      )
    }
    console.log(
      `  event delivery (write sent → recipient's frame): ${expected - lost} of ${expected} expected arrived; ` +
        `of the ${delivery.length} sent after the warm-up p50 ${f0(percentile(delivery, 50))} ms, p99 ${
          f0(percentile(delivery, 99))
        } ms, max ${
          f0(percentile(delivery, 100))
        } ms; lost ${lost}, duplicated ${duplicates} (by key) / ${duplicateIds} (by event id), ` +
        `cursor regressions ${sum((r) => r.cursorRegressions)}; writes whose answer failed: ${uncertain} ` +
        `deliveries (${uncertainArrived} arrived anyway)` +
        (lostSamples.length ? `; lost e.g. ${lostSamples.join(", ")}` : "")
    )
    console.log(
      `  errors: HTTP ≥ 500 ${errors.http5xx}, 429 ${errors.http429}, other 4xx ${errors.http4xx}, network ${errors.network}; ` +
        `socket drops ${drops}` + (firstErrors.length ? ` (first: ${firstErrors[0]})` : "")
    )
    for (const body of reports.flatMap((r) => r.errorBodies as Array<string>).slice(0, 5)) console.log(`    ${body}`)
    for (const node of nodes) {
      for (const line of node.child.errorLines) console.log(`    ${node.name} logged: ${line}`)
    }
    // the clients' own lag, beside the steady state's CPU and PostgreSQL figures printed above
    const clientLag = reports.map((r, k) =>
      `client ${k + 1} loop delay p50 ${f0(r.loop.p50)} / p99 ${f0(r.loop.p99)} / max ${f0(r.loop.max)} ms ` +
      `(worst 5 s window p99 ${f0(Math.max(0, ...r.loop.windows.map((w: { p99: number }) => w.p99)))}), ` +
      `requests sent late p50 ${f0(r.sendLate.p50)} / p99 ${f0(r.sendLate.p99)} / max ${f0(r.sendLate.max)} ms ` +
      `(${r.sendLate.over100ms} of ${r.sendLate.count} over 100 ms)`
    )
    for (const line of clientLag) console.log(`    ${line}`)
    // failed or slow (> 1 s) requests by the 10 s window they were sent in, and the machine's load then
    const trouble = reports.flatMap((r) => r.troubleAt as Array<number>)
    if (trouble.length > 0) {
      const windows = Math.ceil(steadyMs / 10_000)
      const counts = Array.from({ length: windows }, () => 0)
      for (const t of trouble) counts[Math.min(windows - 1, Math.max(0, Math.floor((t - at) / 10_000)))]!++
      const loads = Array.from(
        { length: windows },
        (_, w) => samples.find((x) => x.t >= w * 10_000)?.load.toFixed(0) ?? "—"
      )
      console.log(
        `  failed or > 1 s requests per 10 s window: ${counts.join(" ")} (load average: ${loads.join(" ")})`
      )
    }
    if (reconnects.length > 0 || killedAt !== undefined) {
      console.log(
        `  reconnects: ${reconnects.length} (failed tries ${sum((r) => r.reconnectFailures)}), close → ready p50 ${
          f0(percentile(reconnectMs, 50))
        } ms, p90 ${f0(percentile(reconnectMs, 90))} ms, p99 ${f0(percentile(reconnectMs, 99))} ms, max ${
          f0(percentile(reconnectMs, 100))
        } ms` + (backWithin30 !== undefined ? `; back within 30 s of the kill: ${backWithin30} of ${drops}` : "") +
          `; without a socket at the end: ${sum((r) => r.notReady)}`
      )
      const codes: Record<string, number> = {}
      for (const r of reports) {
        for (const [k, v] of Object.entries(r.closeCodes as Record<string, number>)) codes[k] = (codes[k] ?? 0) + v
      }
      console.log(
        `    closes by code: ${Object.entries(codes).map(([k, v]) => `${k} ×${v}`).join(", ") || "none"}`
      )
      if (proxy !== undefined) {
        const states = proxy.child.output().split("\n").filter((l) => / is (DOWN|UP)/.test(l))
        console.log(
          `    HAProxy: ${
            states.map((l) => l.replace(/.*(Server \S+ is \w+).*/, "$1")).join("; ") || "no state change"
          }`
        )
      }
      console.log(
        `    written to an agent while it had no socket (delivered by the resume with ?after=): ${whileAwayArrived} ` +
          `of ${whileAway} arrived`
      )
    }
    console.log(
      `  ${"process".padEnd(8)} ${"agents".padStart(7)} ${"RSS before".padStart(11)} ${"after connect".padStart(14)} ${
        "end".padStart(7)
      } ${"KB/agent".padStart(9)} ${"CPU %".padStart(6)}`
    )
    nodes.forEach((node, k) => {
      console.log(
        `  ${node.name.padEnd(8)} ${f0(agentsOn(k)).padStart(7)} ${f0(before[k]!).padStart(8)} MB ${
          f0(after[k]!).padStart(11)
        } MB ${(node.killed ? "killed" : `${f0(final[k]!)} MB`).padStart(7)} ${f1(memPerAgentKb[k]!).padStart(9)} ${
          f0(cpuPct[k]!).padStart(6)
        }`
      )
    })
    const connected = metrics.map((m) =>
      m === undefined ? undefined : Object.entries(m).find(([k]) => k.startsWith("shoal_connected_agents"))?.[1]
    )
    console.log(
      metricsBefore === undefined && metrics.every((m) => m === undefined)
        ? "  /metrics: not served by this build (figures above from /proc)"
        : `  /metrics shoal_connected_agents per node: ${connected.map((c) => c ?? "—").join(", ")}`
    )

    // ---- the summary's figures (issue 46's goals)
    const label = `${agents} agents, R=${rate}, ${nodes.length} node(s)${proxy ? " behind HAProxy" : ""}`
    report({
      bench: "fleet",
      measure: `API p99, ${label}`,
      value: `p50 ${f1(percentile(all, 50))} ms`,
      figure: Number(f1(percentile(all, 99))),
      goal: { atMost: 100 },
      unit: "ms"
    })
    report({
      bench: "fleet",
      measure: `event delivery p99, ${label}`,
      value: `p50 ${f0(percentile(delivery, 50))} ms`,
      figure: Number(f0(percentile(delivery, 99))),
      goal: { atMost: 1000 },
      unit: "ms"
    })
    report({
      bench: "fleet",
      measure: `errors (5xx, 429, network) + lost + duplicated, ${label}`,
      value: `${errors.http5xx}+${errors.http429}+${errors.network} / ${lost} / ${duplicates}`,
      figure: errors.http5xx + errors.http429 + errors.network + lost + duplicates,
      goal: { atMost: 0 },
      unit: ""
    })
    report({
      bench: "fleet",
      measure: `memory per connected agent (worst node), ${label}`,
      value: memPerAgentKb.map(f1).join(" / ") + " KB",
      figure: Number(f1(Math.max(...memPerAgentKb))),
      goal: { atMost: 12 },
      unit: "KB"
    })
    if (killedAt !== undefined) {
      report({
        bench: "fleet",
        measure: `agents back within 30 s of a node's SIGKILL, ${label}`,
        value: `${backWithin30} of ${drops}`,
        figure: drops - (backWithin30 ?? 0),
        goal: { atMost: 0 },
        unit: "missing"
      })
    }

    // ---- results file
    const resultsFile = new URL("./fleet-results.json", import.meta.url)
    const results = Fs.existsSync(resultsFile) ? JSON.parse(Fs.readFileSync(resultsFile, "utf8")) : {}
    const commit = (() => {
      try {
        return execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim()
      } catch {
        return "unknown"
      }
    })()
    const key = `${new Date().toISOString()} N=${agents} R=${rate} nodes=${nodes.length}${proxy ? " haproxy" : ""}`
    results[key] = {
      commit,
      agents,
      rate,
      nodes: nodes.length,
      balancer,
      killed: killedNode?.name ?? null,
      seconds: Math.round(steadyMs / 1000),
      cores: Os.cpus().length,
      loadAverage: Os.loadavg()[0],
      // what the run was given beyond npm start's defaults
      ...(process.env.BENCH_NODE_ARGS ? { nodeArgs: process.env.BENCH_NODE_ARGS } : {}),
      ...(process.env.BENCH_AUTOGROUP_NICE ? { autogroupNice: Number(process.env.BENCH_AUTOGROUP_NICE) } : {}),
      connectSeconds: connectMs / 1000,
      api: {
        count: all.length,
        p50: percentile(all, 50),
        p99: percentile(all, 99),
        beforeKill: killedAt === undefined ? null : {
          p50: percentile(allBefore, 50),
          p99: percentile(allBefore, 99),
          deliveryP50: percentile(deliveryBefore, 50),
          deliveryP99: percentile(deliveryBefore, 99)
        },
        byKind: Object.fromEntries(
          Object.entries(byKind).map((
            [k, xs]
          ) => [k, { count: xs.length, p50: percentile(xs, 50), p99: percentile(xs, 99) }])
        )
      },
      delivery: {
        expected,
        arrived: delivery.length,
        p50: percentile(delivery, 50),
        p99: percentile(delivery, 99),
        max: percentile(delivery, 100),
        lost,
        duplicated: duplicates,
        duplicatedIds: duplicateIds,
        uncertain,
        uncertainArrived
      },
      errors: { ...errors, socketDrops: drops },
      bounds: {
        connect: connectWatched,
        steady: steadyWatched,
        clients: reports.map((r) => ({ loop: { ...r.loop, windows: undefined }, sendLate: r.sendLate })),
        errorBodies: reports.flatMap((r) => r.errorBodies as Array<string>).slice(0, 5),
        serverErrorLines: nodes.map((node) => node.child.errorLines)
      },
      reconnect: reconnects.length === 0 ? null : {
        count: reconnects.length,
        p50: percentile(reconnectMs, 50),
        p90: percentile(reconnectMs, 90),
        p99: percentile(reconnectMs, 99),
        max: percentile(reconnectMs, 100),
        backWithin30s: backWithin30 ?? null,
        writtenWhileAway: whileAway,
        writtenWhileAwayArrived: whileAwayArrived
      },
      processes: nodes.map((node, k) => ({
        name: node.name,
        agents: agentsOn(k),
        rssBeforeMb: before[k],
        rssAfterConnectMb: after[k],
        rssEndMb: node.killed ? null : final[k],
        kbPerAgent: memPerAgentKb[k],
        cpuPercent: cpuPct[k],
        connectedAgentsMetric: connected[k] ?? null
      })),
      samples
    }
    Fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2) + "\n")
    console.log(`  figures appended to bench/fleet-results.json as "${key}"`)
    await Promise.all(clients.map((c) => c.stop()))
  } finally {
    for (const c of children.reverse()) await c.stop()
    await db.drop().catch(() => undefined)
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run(parseArgs(process.argv.slice(2)).options).then(() => process.exit(0), (e) => {
    console.error(e)
    process.exit(1)
  })
}
