// `npm run bench -- hostile`: slow and hostile clients against one Shoal server (embedded database, 127.0.0.1).
// For each attack, a normal client's p99 — GET /api/agent/me, and an event round trip (PATCH the profile, wait for
// its profile.updated on the client's own socket) — measured without, then with the attack, in the same run; the
// server's RSS before, at its peak during, and 3 s after. Attackers run in their own process
// (bench/hostile-attacks.ts) from 127.0.<n>.2–5, a block of addresses per attack; the webhook attack is an account whose receiver never answers,
// its events flowing, beside the normal client's own answering receiver. `BENCH_SECONDS` per phase (default 6).
import { fork } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import WebSocket from "ws"
import { cpuMs, freePort, npmStartFlags, report, startTs, waitFor } from "./support.js"

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024
const p = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
const load1 = () => Os.loadavg()[0]!.toFixed(2)

/** A webhook receiver: answers 200, or (never) holds every request open. Counts what it got. */
const receiver = (never: boolean) =>
  new Promise<{ url: string; count: () => number; close: () => void }>((resolve) => {
    let n = 0
    const server = Http.createServer((req, res) => {
      n++
      req.resume()
      if (!never) res.writeHead(200).end()
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        count: () => n,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      }))
  })

const json = async (url: string, init: RequestInit & { key?: string } = {}) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`
  const res = await fetch(url, { ...init, headers })
  return (await res.json()) as any
}

export const run = async () => {
  const seconds = Number(process.env.BENCH_SECONDS ?? 6)
  const port = await freePort()
  const dnsPort = await freePort()
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-hostile-"))
  // deadlines short enough to fire within a phase; the defaults are 10 s / 30 s / 10 s / 10 s
  const proc = startTs(
    "src/main.ts",
    {
      DATA_DIR: dir,
      DATABASE_URL: "",
      HOST: "127.0.0.1",
      PORT: String(port),
      WALLET_PORT: String(await freePort()),
      DNS_PORT: String(dnsPort),
      RATE_LIMIT_PER_MINUTE: String(1e9),
      WEBHOOK_ALLOW_PRIVATE: "true",
      HTTP_HEADERS_TIMEOUT: "3 seconds",
      HTTP_REQUEST_TIMEOUT: "5 seconds",
      WS_AUTH_TIMEOUT: "3 seconds",
      WEBHOOK_TIMEOUT: "3 seconds"
      // with `npm start`'s V8 flags: the RSS columns are the product's, not those of V8's default 16 MB semi-spaces
    },
    [],
    undefined,
    npmStartFlags
  )
  const pid = proc.child.pid!
  const base = `http://127.0.0.1:${port}`
  const good = await receiver(false)
  const stuck = await receiver(true)
  const sockets: Array<WebSocket> = []
  try {
    await waitFor(`${base}/health`, proc)
    const stamp = Date.now().toString(36)
    const human = await json(`${base}/api/accounts`, {
      method: "POST",
      body: JSON.stringify({ handle: `hb${stamp}`, display_name: "Bench" })
    })
    const agent = await json(`${base}/api/account/agents`, {
      method: "POST",
      key: human.api_key,
      body: JSON.stringify({ handle: `ha${stamp}`, display_name: "Normal" })
    })
    const victim = await json(`${base}/api/account/agents`, {
      method: "POST",
      key: human.api_key,
      body: JSON.stringify({ handle: `hv${stamp}`, display_name: "Stuck" })
    })
    const patch = (key: string, body: object) =>
      json(`${base}/api/agent/profile`, { method: "PATCH", key, body: JSON.stringify(body) })
    await patch(agent.api_key, { webhook_url: good.url })
    await patch(victim.api_key, { webhook_url: stuck.url })

    // the normal client's socket; each profile.updated frame resolves the round trip waiting for it
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/agent/ws`, {
      headers: { authorization: `Bearer ${agent.api_key}` },
      perMessageDeflate: false
    })
    sockets.push(ws)
    let waiting: (() => void) | undefined
    await new Promise<void>((resolve, reject) => {
      ws.on("message", (data) => {
        const frame = JSON.parse(data.toString())
        if (frame.type === "ready") resolve()
        if (frame.type === "event" && frame.event?.type === "profile.updated") waiting?.()
      })
      ws.on("error", reject)
    })

    /** The normal client for `ms`: GET /api/agent/me and event round trips, each one at a time, side by side. */
    const measure = async (ms: number) => {
      const until = Date.now() + ms
      const me: Array<number> = []
      const events: Array<number> = []
      let failures = 0
      let n = 0
      await Promise.all([
        (async () => {
          while (Date.now() < until) {
            const t = performance.now()
            const res = await fetch(`${base}/api/agent/me`, { headers: { authorization: `Bearer ${agent.api_key}` } })
            await res.arrayBuffer()
            if (res.ok) me.push(performance.now() - t)
            else failures++
          }
        })(),
        (async () => {
          while (Date.now() < until) {
            const t = performance.now()
            const seen = new Promise<void>((r) => (waiting = r))
            await patch(agent.api_key, { bio: `round ${n++}` })
            await Promise.race([seen, sleep(10_000)])
            events.push(performance.now() - t)
          }
        })()
      ])
      return { me, events, failures }
    }

    const rows: Array<string> = []
    const phases: Array<
      { attack: string; without: number; with: number; failed: number; rssRise: number; quietRise: number }
    > = []
    const attacks = [
      "slowloris-headers",
      "slowloris-bodies",
      "ws-unauthenticated",
      "ws-oversized",
      "webhook-stuck",
      "dns-flood",
      // dns-flood's baseline: the same flood at a socket nobody reads (hostile-attacks.ts), the machine's own cost
      "dns-flood-sink",
      // only when named: ws-unauthenticated through the `ws` client, as the bench ran it until session 15
      "ws-unauthenticated-ws"
    ].filter((a) =>
      (process.env.BENCH_ATTACKS ?? "").split(",").some((w) => (w === "" && a !== "ws-unauthenticated-ws") || w === a)
    )
    await measure(2_000) // warm-up
    for (const attack of attacks) {
      const loadBefore = load1()
      const cpuQuiet0 = cpuMs(pid) ?? 0
      // the same RSS reading over the phase without the attack: the swing of the normal client's own garbage
      const quietRss0 = rssMb(pid)
      let quietPeak = quietRss0
      const quietSampler = setInterval(() => (quietPeak = Math.max(quietPeak, rssMb(pid))), 200)
      const baseline = await measure(seconds * 1000)
      clearInterval(quietSampler)
      const cpuQuiet = (cpuMs(pid) ?? 0) - cpuQuiet0
      const rssBefore = rssMb(pid)
      const goodBefore = good.count()
      let peak = rssBefore
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 200)
      const cpu0 = cpuMs(pid) ?? 0
      let summary: any = {}
      let attacker: Promise<any> = Promise.resolve({})
      let flowing = true
      if (attack === "webhook-stuck") {
        // the victim's events flow all along: each PATCH is one more delivery to a receiver that never answers
        attacker = (async () => {
          let n = 0
          while (flowing) {
            await patch(victim.api_key, { bio: `stuck ${n++}` })
            await sleep(20)
          }
          return { events: n, stuckReceived: stuck.count() }
        })()
      } else {
        const child = fork(fileURLToPath(new URL("./hostile-attacks.ts", import.meta.url)), [
          attack,
          String(port),
          String(dnsPort),
          String(seconds + 1),
          // addresses of its own: the previous attack's may still be in the server's penalty box
          String(attacks.indexOf(attack) + 1)
        ], { execArgv: ["--import", "tsx"], stdio: ["ignore", "pipe", "inherit", "ipc"] })
        let out = ""
        child.stdout!.on("data", (d) => (out += d))
        attacker = new Promise((resolve) => child.on("exit", () => resolve(JSON.parse(out || "{}"))))
      }
      await sleep(1_000) // let the attack build up
      const loadDuring = load1()
      const during = await measure(seconds * 1000)
      flowing = false
      summary = await attacker
      const cpu = (cpuMs(pid) ?? 0) - cpu0
      clearInterval(sampler)
      await sleep(3_000)
      const rssAfter = rssMb(pid)
      phases.push({
        attack,
        without: p(baseline.me, 0.99),
        with: p(during.me, 0.99),
        failed: baseline.failures + during.failures,
        rssRise: peak - rssBefore,
        quietRise: quietPeak - quietRss0
      })
      const fmt = (xs: ReadonlyArray<number>) => `${p(xs, 0.5).toFixed(1)}/${p(xs, 0.99).toFixed(1)}`
      rows.push(
        `| ${attack} | ${fmt(baseline.me)} → ${fmt(during.me)} (${baseline.me.length} → ${during.me.length} req, ` +
          `${during.failures} failed) | ${fmt(baseline.events)} → ${fmt(during.events)} | ` +
          `${rssBefore.toFixed(0)} / ${peak.toFixed(0)} / ${rssAfter.toFixed(0)} (+${
            (quietPeak - quietRss0).toFixed(0)
          }) | ${(cpuQuiet / 1000).toFixed(1)} → ${(cpu / 1000).toFixed(1)} s | ` +
          `${loadBefore} / ${loadDuring} | ${JSON.stringify({ ...summary, goodWebhooks: good.count() - goodBefore })} |`
      )
      console.log(rows[rows.length - 1])
    }
    console.log(
      "\n| attack | GET /api/agent/me p50/p99 ms, without → with | event round trip p50/p99 ms | RSS MB before / peak / 3 s after (rise without the attack) | server CPU without → during (+1 s build-up) | load avg (1 min) before / during | attacker |"
    )
    console.log("|---|---|---|---|---|---|---|")
    for (const row of rows) console.log(row)
    // "Usual" p99: the median of the phases' p99 without an attack, so one noisy quiet window sets no goal.
    const usual = [...phases.map((ph) => ph.without)].sort((a, b) => a - b)[Math.floor(phases.length / 2)]!
    const sink = phases.find((ph) => ph.attack === "dns-flood-sink")
    for (const ph of phases) {
      if (ph === sink) continue
      const baseline = ph.attack === "dns-flood" && sink !== undefined
        ? ` (the same flood at a socket nobody reads: ${sink.with.toFixed(0)} ms)`
        : ""
      report({
        bench: "hostile",
        measure: `${ph.attack}: normal GET /me p99 vs its usual p99`,
        value: `${ph.with.toFixed(0)} vs ${usual.toFixed(0)} ms${baseline}`,
        figure: ph.with / usual,
        goal: { atMost: 2 }
      })
    }
    report({
      bench: "hostile",
      measure: "normal requests failed, all attacks",
      value: `${phases.reduce((n, ph) => n + ph.failed, 0)} failed`,
      figure: phases.reduce((n, ph) => n + ph.failed, 0),
      unit: "requests",
      goal: { atMost: 0 }
    })
    const worst = phases.reduce((a, b) => (b.rssRise > a.rssRise ? b : a))
    report({
      bench: "hostile",
      measure: "peak RSS above rest during an attack (worst)",
      value: `${worst.rssRise.toFixed(0)} MB (${worst.attack}; without an attack up to ${
        Math.max(...phases.map((ph) => ph.quietRise)).toFixed(0)
      } MB)`,
      figure: Math.round(worst.rssRise),
      unit: "MB",
      goal: { atMost: 64 }
    })
  } finally {
    for (const s of sockets) s.terminate()
    good.close()
    stuck.close()
    await proc.stop()
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}
