/**
 * `npm run bench -- dns` (or `npx tsx bench/dns.ts`): UDP queries/second of our responder against a bare
 * dgram + dns-packet responder, each in its own process, loaded from this one on 127.0.0.1.
 * The two are measured in alternating slices, so a neighbour's burst of CPU lands on both, and each
 * server's CPU time is read around its slices: queries per CPU-second is the steadier figure.
 */
import * as DnsPacket from "dns-packet"
import { type ChildProcess, fork } from "node:child_process"
import * as Dgram from "node:dgram"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { compareWithNsd } from "./dns-nsd.js"
import { name, records, zone } from "./dns-server.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = 3
const WARMUP_MS = 300
const SOCKETS = 4
const WINDOW = 200
const LOST_AFTER_MS = 1000

interface Server {
  readonly child: ChildProcess
  readonly port: number
}

const start = (mode: "ours" | "baseline") =>
  new Promise<Server>((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./dns-server.ts", import.meta.url)), [mode], {
      // BENCH_PROFILE=<dir>: our server writes a V8 CPU profile there when it stops
      execArgv: [
        ...(process.env.BENCH_PROFILE && mode === "ours"
          ? ["--cpu-prof", `--cpu-prof-dir=${Path.resolve(process.env.BENCH_PROFILE)}`]
          : []),
        "--import",
        "tsx"
      ],
      stdio: ["ignore", "ignore", "inherit", "ipc"]
    })
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start`)), 30_000)
    child.once("message", (message: { port: number }) => {
      clearTimeout(timer)
      resolve({ child, port: message.port })
    })
    child.once("exit", (code) => reject(new Error(`${mode} server exited with ${code}`)))
  })

const stop = (server: Server) =>
  new Promise<void>((resolve) => {
    if (server.child.exitCode !== null) return resolve()
    server.child.once("exit", () => resolve())
    server.child.kill("SIGTERM")
    setTimeout(() => server.child.kill("SIGKILL"), 3000).unref()
  })

/** The child's user + system CPU time, in seconds. */
const cpuSeconds = (server: Server) =>
  new Promise<number>((resolve) => {
    server.child.once("message", (message: { usage: NodeJS.CpuUsage }) =>
      resolve((message.usage.user + message.usage.system) / 1e6))
    server.child.send("usage")
  })

interface Result {
  readonly answered: number
  readonly seconds: number
  readonly cpu: number
  readonly lost: number
  readonly bad: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Keeps WINDOW queries outstanding across SOCKETS sockets; a query unanswered for a second counts as lost. */
const load = async (server: Server, seconds: number): Promise<Result> => {
  const template = DnsPacket.encode({
    type: "query",
    id: 0,
    flags: DnsPacket.RECURSION_DESIRED,
    questions: [{ type: "TXT", name }]
  })
  let counting = false
  let stopped = false
  let answered = 0
  let lost = 0
  let bad = 0
  const sockets = Array.from({ length: SOCKETS }, () => {
    const socket = Dgram.createSocket("udp4")
    const outstanding = new Map<number, number>()
    let nextId = 0
    const send = () => {
      if (stopped) return
      const id = nextId = (nextId + 1) & 0xffff
      const message = Buffer.from(template)
      message.writeUInt16BE(id, 0)
      outstanding.set(id, performance.now())
      socket.send(message, server.port, "127.0.0.1")
    }
    socket.on("message", (reply) => {
      if (!outstanding.delete(reply.readUInt16BE(0))) return
      const ok = (reply[3] & 0x0f) === 0 && reply.readUInt16BE(6) === 3
      if (counting) ok ? answered++ : bad++
      send()
    })
    const expire = () => {
      const now = performance.now()
      for (const [id, sent] of outstanding) {
        if (now - sent < LOST_AFTER_MS) continue
        outstanding.delete(id)
        if (counting) lost++
        send()
      }
    }
    return { socket, send, expire }
  })
  const sweeper = setInterval(() => sockets.forEach((s) => s.expire()), 100)
  sockets.forEach((s, i) => {
    for (let n = i; n < WINDOW; n += SOCKETS) s.send()
  })
  await sleep(WARMUP_MS)
  const cpuBefore = await cpuSeconds(server)
  counting = true
  const startedAt = performance.now()
  await sleep(seconds * 1000)
  counting = false
  const elapsed = (performance.now() - startedAt) / 1000
  const cpu = (await cpuSeconds(server)) - cpuBefore
  stopped = true
  clearInterval(sweeper)
  await sleep(200)
  sockets.forEach((s) => s.socket.close())
  return { answered, seconds: elapsed, cpu, lost, bad }
}

const sum = (results: ReadonlyArray<Result>): Result =>
  results.reduce((a, r) => ({
    answered: a.answered + r.answered,
    seconds: a.seconds + r.seconds,
    cpu: a.cpu + r.cpu,
    lost: a.lost + r.lost,
    bad: a.bad + r.bad
  }))

const qps = (r: Result) => r.answered / r.seconds
const perCpu = (r: Result) => r.answered / r.cpu
const thousands = (n: number) => Math.round(n).toLocaleString("en-US").padStart(9)

const format = (label: string, r: Result) =>
  `${label.padEnd(10)} ${thousands(qps(r))} queries/s  ${thousands(perCpu(r))} per CPU-second` +
  `  (lost ${r.lost}, bad ${r.bad})`

export const run = async (): Promise<void> => {
  const servers = await Promise.all([start("ours"), start("baseline")])
  try {
    const slice = SECONDS / ROUNDS
    console.log(`dns: UDP TXT ${name}, ${WINDOW} in flight over ${SOCKETS} sockets, ${SECONDS}s per server`)
    // a second of unmeasured load each first, so the JIT has compiled both hot paths
    for (const server of servers) await load(server, 1)
    const results: [Array<Result>, Array<Result>] = [[], []]
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) results[i].push(await load(servers[i], slice))
    }
    const [ours, baseline] = results.map(sum)
    console.log(format("ours", ours))
    console.log(format("baseline", baseline))
    const slices = results[0].map((r, i) => (qps(r) / qps(results[1][i])).toFixed(2)).join(", ")
    const ratio = qps(ours) / qps(baseline)
    console.log(`ratio ours/baseline ${ratio.toFixed(2)} queries/s (goal >= 0.60; slices ${slices})`)
    console.log(`ratio ours/baseline ${(perCpu(ours) / perCpu(baseline)).toFixed(2)} per CPU-second`)
    if (process.env.BENCH_DNS_NSD !== "0") {
      await compareWithNsd({ port: servers[0].port, cpu: () => cpuSeconds(servers[0]) }, zone, records, SECONDS, ROUNDS)
    }
  } finally {
    await Promise.all(servers.map(stop))
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
}
