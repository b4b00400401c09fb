/**
 * Shoal's responder against NSD (NLnet Labs' authoritative server, Debian `nsd`), both loaded by dnsperf with the
 * same query file, in alternating slices. NSD runs in the foreground as the current user, without chroot, from a
 * config and zone in a temp dir that serve the TXT records Shoal serves for the file's names; one server process
 * (Shoal answers on one thread), no response rate limiting (Shoal's bench server has none either).
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Dgram from "node:dgram"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { isPrefixed } from "../src/Dns/Records.js"
import type { IdentityRecords } from "../src/Dns/RecordSource.js"
import { dnsperf, type DnsperfResult, ensureInstalled } from "./dnsperf.js"
import { report } from "./support.js"

const GOAL = 0.25
const CLIENTS = 4
const OUTSTANDING = 200

const quote = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`

/** The zone file for what Shoal serves: each handle's prefixed TXT values, and its proof URL at `_identity`. */
const zoneFile = (zone: string, records: Readonly<Record<string, IdentityRecords>>) =>
  [
    `$ORIGIN ${zone}.`,
    `$TTL 300`,
    `@ IN SOA ns1.${zone}. hostmaster.${zone}. 1 3600 600 604800 60`,
    `@ IN NS ns1.${zone}.`,
    `ns1 IN A 127.0.0.1`,
    ...Object.entries(records).flatMap(([handle, r]) => [
      ...r.txt.filter(isPrefixed).map((value) => `${handle} IN TXT ${quote(value)}`),
      ...(r.proofUrl.length > 0 ? [`_identity.${handle} IN TXT ${quote(r.proofUrl)}`] : [])
    ]),
    ""
  ].join("\n")

/** The names dnsperf asks both servers, in a loop. */
export const queryLines = (
  zone: string,
  records: Readonly<Record<string, IdentityRecords>>
) => [
  ...Object.keys(records).map((h) => `${h}.${zone} TXT`),
  ...Object.keys(records).map((h) => `_identity.${h}.${zone} TXT`)
]

/**
 * A port free for both UDP and TCP (NSD binds both), outside the kernel's ephemeral range: the benches before this
 * one leave thousands of client TCP ports in TIME_WAIT there, and a UDP-only probe once picked one of them.
 */
const freeDnsPort = async (): Promise<number> => {
  for (let i = 0; i < 100; i++) {
    const port = 20000 + Math.floor(Math.random() * 12000)
    if ((await bindsUdp(port)) && (await bindsTcp(port))) return port
  }
  throw new Error("no free port for nsd in 20000-32000")
}

const bindsUdp = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = Dgram.createSocket("udp4")
    socket.once("error", () => resolve(false))
    socket.bind(port, "127.0.0.1", () => socket.close(() => resolve(true)))
  })

const bindsTcp = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = Net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether something answers a DNS query on the port (NSD takes a moment to load the zone). */
const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = Dgram.createSocket("udp4")
    const timer = setTimeout(() => done(false), 300)
    const done = (ok: boolean) => {
      clearTimeout(timer)
      socket.close()
      resolve(ok)
    }
    socket.on("message", () => done(true))
    // id 1, no flags, one question: "." SOA IN
    socket.send(Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 1]), port, "127.0.0.1")
  })

interface Nsd {
  readonly child: ChildProcess
  readonly port: number
  readonly dir: string
}

/** NSD on a fresh port; a port taken between the probe and NSD's bind is retried on another (three tries). */
const startNsd = async (zone: string, records: Readonly<Record<string, IdentityRecords>>): Promise<Nsd> => {
  for (let attempt = 1;; attempt++) {
    try {
      return await startNsdOnce(zone, records, await freeDnsPort())
    } catch (error) {
      if (attempt >= 3) throw error
      console.error(`nsd: ${(error as Error).message.split("\n")[0]}; trying another port`)
    }
  }
}

const startNsdOnce = async (
  zone: string,
  records: Readonly<Record<string, IdentityRecords>>,
  port: number
): Promise<Nsd> => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-nsd-"))
  Fs.writeFileSync(Path.join(dir, `${zone}.zone`), zoneFile(zone, records))
  Fs.writeFileSync(
    Path.join(dir, "nsd.conf"),
    [
      "server:",
      `  ip-address: 127.0.0.1@${port}`,
      `  port: ${port}`,
      "  server-count: 1",
      "  reuseport: no",
      `  username: ""`,
      `  chroot: ""`,
      `  zonesdir: "${dir}"`,
      `  database: ""`,
      `  pidfile: "${dir}/nsd.pid"`,
      `  xfrdfile: "${dir}/xfrd.state"`,
      `  zonelistfile: "${dir}/zone.list"`,
      `  logfile: "${dir}/nsd.log"`,
      "  verbosity: 1",
      "  hide-version: yes",
      "  minimal-responses: yes",
      "  rrl-ratelimit: 0",
      "remote-control:",
      "  control-enable: no",
      "zone:",
      `  name: ${zone}`,
      `  zonefile: "${dir}/${zone}.zone"`,
      ""
    ].join("\n")
  )
  const child = spawn("nsd", ["-d", "-c", Path.join(dir, "nsd.conf")], { stdio: ["ignore", "ignore", "inherit"] })
  for (let i = 0; i < 50; i++) {
    if (child.exitCode !== null) break
    if (await answers(port)) return { child, port, dir }
    await sleep(100)
  }
  child.kill("SIGTERM")
  const log = Fs.existsSync(Path.join(dir, "nsd.log")) ? Fs.readFileSync(Path.join(dir, "nsd.log"), "utf8") : ""
  throw new Error(`nsd did not start on port ${port}:\n${log}`)
}

const stopNsd = async (nsd: Nsd) => {
  if (nsd.child.exitCode === null) {
    const exited = new Promise((resolve) => nsd.child.once("exit", resolve))
    nsd.child.kill("SIGTERM")
    await Promise.race([exited, sleep(3000)])
  }
  Fs.rmSync(nsd.dir, { recursive: true, force: true })
}

const TICKS = 100 // USER_HZ on Linux

/** User + system CPU seconds of a process and all its descendants (NSD forks its server and xfrd). */
const treeCpuSeconds = (root: number): number => {
  const stats = new Map<number, { ppid: number; ticks: number }>()
  for (const entry of Fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = Fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      // fields after the parenthesised command: state ppid … utime(14) stime(15)
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) })
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      if (p === root) return true
      p = stats.get(p)?.ppid ?? 0
    }
    return false
  }
  let ticks = 0
  for (const [pid, s] of stats) if (inTree(pid)) ticks += s.ticks
  return ticks / TICKS
}

interface Slice {
  readonly result: DnsperfResult
  readonly cpu: number
}

const format = (label: string, slices: ReadonlyArray<Slice>) => {
  const seconds = slices.reduce((n, s) => n + s.result.runSeconds, 0)
  const completed = slices.reduce((n, s) => n + s.result.completed, 0)
  const lost = slices.reduce((n, s) => n + s.result.lost, 0)
  const cpu = slices.reduce((n, s) => n + s.cpu, 0)
  const qps = completed / seconds
  const other = [...new Set(slices.map((s) => s.result.otherRcodes).filter((c) => c !== ""))].join("; ")
  return {
    qps,
    line: `${label.padEnd(10)} ${Math.round(qps).toLocaleString("en-US").padStart(9)} queries/s` +
      `  ${(cpu / completed * 1e6).toFixed(1).padStart(6)} µs CPU/query  (lost ${lost}${
        other === "" ? "" : `, not NOERROR: ${other}`
      })`
  }
}

/**
 * Alternating dnsperf slices against Shoal (already running on `ours.port`; `ours.cpu` reads its CPU seconds)
 * and a fresh NSD serving the same records; prints queries/s, CPU per query and the ratio beside the goal.
 * Skipped with a notice where dnsperf or NSD is missing and cannot be installed.
 */
export const compareWithNsd = async (
  ours: { readonly port: number; readonly cpu: () => Promise<number> },
  zone: string,
  records: Readonly<Record<string, IdentityRecords>>,
  seconds: number,
  rounds: number
): Promise<void> => {
  const missing = ensureInstalled([{ binary: "dnsperf", pkg: "dnsperf" }, { binary: "nsd", pkg: "nsd" }])
  if (missing !== null) {
    console.log(`dns vs NSD: skipped (${missing})`)
    return
  }
  const nsd = await startNsd(zone, records)
  const queryFile = Path.join(nsd.dir, "queries.txt")
  Fs.writeFileSync(queryFile, queryLines(zone, records).join("\n") + "\n")
  try {
    const slice = Math.max(1, Math.round(seconds / rounds))
    const servers = [
      { port: ours.port, cpu: ours.cpu },
      { port: nsd.port, cpu: async () => treeCpuSeconds(nsd.child.pid!) }
    ]
    console.log(
      `dns vs NSD: dnsperf, ${queryLines(zone, records).length} TXT names, ${CLIENTS} clients, ` +
        `${OUTSTANDING} outstanding, ${rounds} × ${slice}s per server`
    )
    // unmeasured first run each, so the JIT has compiled Shoal's hot path and both caches are warm
    for (const server of servers) {
      await dnsperf({ port: server.port, queryFile, seconds: 1, clients: CLIENTS, outstanding: OUTSTANDING })
    }
    const slices: [Array<Slice>, Array<Slice>] = [[], []]
    for (let round = 0; round < rounds; round++) {
      for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const server = servers[i]!
        const before = await server.cpu()
        const result = await dnsperf({
          port: server.port,
          queryFile,
          seconds: slice,
          clients: CLIENTS,
          outstanding: OUTSTANDING
        })
        slices[i]!.push({ result, cpu: (await server.cpu()) - before })
      }
    }
    const shoal = format("shoal", slices[0])
    const reference = format("nsd", slices[1])
    console.log(shoal.line)
    console.log(reference.line)
    const per = slices[0].map((s, i) => (s.result.qps / slices[1][i]!.result.qps).toFixed(2)).join(", ")
    console.log(
      `ratio shoal/nsd ${(shoal.qps / reference.qps).toFixed(2)} queries/s (goal >= ${GOAL.toFixed(2)}; slices ${per})`
    )
    report({
      bench: "dns",
      measure: "TXT queries/s vs NSD, both under dnsperf",
      value: `${shoal.qps.toFixed(0)} vs ${reference.qps.toFixed(0)} q/s`,
      figure: shoal.qps / reference.qps,
      goal: { atLeast: GOAL }
    })
  } finally {
    await stopNsd(nsd)
  }
}
