// `npx tsx bench/fleet-plot.ts [--rate R] [--since ISO] [results.json] [out.png]`: the fleet bench's figures
// (bench/fleet-results.json) at rate R (20), from that time on, as a PNG, bench/fleet.png by default, on the soak
// chart's hand-written canvas (bench/soak-chart.ts). Two panels against the number of agents: p99 latency on a log
// scale (API, red; event delivery, orange) and resident memory (the largest server process, blue; all server
// processes together, green). One point per run, the newest run of each (agents, rate, nodes) when there are
// several; runs behind the balancer are drawn as hollow squares.
import * as Fs from "node:fs"
import { Canvas, encodePng, W } from "./soak-chart.js"
import { parseArgs } from "./support.js"

interface Run {
  readonly agents: number
  readonly rate: number
  readonly nodes: number
  readonly balancer: string
  readonly api: { readonly p99: number }
  readonly delivery: { readonly p99: number }
  readonly processes: ReadonlyArray<{ readonly rssAfterConnectMb: number; readonly rssEndMb: number | null }>
}

type Rgb = readonly [number, number, number]

export const drawFleet = (runs: ReadonlyArray<Run>): Buffer => {
  const c = new Canvas()
  const left = 90
  const right = W - 30
  const maxN = Math.max(1, ...runs.map((r) => r.agents)) * 1.05
  const xOf = (n: number) => left + ((right - left) * n) / maxN
  const mark = (x: number, y: number, rgb: Rgb, hollow: boolean) => {
    for (let dx = -4; dx <= 4; dx++) {
      for (let dy = -4; dy <= 4; dy++) {
        if (!hollow || Math.abs(dx) === 4 || Math.abs(dy) === 4) c.set(x + dx, y + dy, rgb)
      }
    }
  }
  const panel = (
    top: number,
    bottom: number,
    label: string,
    series: ReadonlyArray<{ name: string; rgb: Rgb; value: (r: Run) => number }>,
    /** a log scale from 10 to 100,000 (latencies: 37 ms and 30 s on one axis), else linear from 0 */
    log = false
  ) => {
    const values = runs.flatMap((r) => series.map((s) => s.value(r))).filter(Number.isFinite)
    const max = Math.max(1, ...values) * 1.1
    const yOf = (v: number) =>
      log
        ? bottom - ((bottom - top) * (Math.log10(Math.min(Math.max(v, 10), 100_000)) - 1)) / 4
        : bottom - ((bottom - top) * v) / max
    c.line(left, top, left, bottom, [0, 0, 0])
    c.line(left, bottom, right, bottom, [0, 0, 0])
    for (let g = 1; g <= 4; g++) {
      const y = bottom - ((bottom - top) * g) / 4
      c.line(left + 1, y, right, y, [225, 225, 225])
      c.text(8, y - 5, log ? String(10 ** (g + 1)) : (max * g / 4).toFixed(0))
    }
    c.text(left + 10, top - 22, label, 3)
    let at = left + 10 + label.length * 12 + 20
    for (const s of series) {
      c.text(at, top - 18, s.name, 2, s.rgb)
      at += s.name.length * 8 + 24
      const direct = runs.filter((r) => r.balancer === "none").sort((a, b) => a.agents - b.agents)
      let prev: [number, number] | undefined
      for (const r of direct) {
        const v = s.value(r)
        if (!Number.isFinite(v)) continue
        const p: [number, number] = [xOf(r.agents), yOf(v)]
        if (prev) c.line(prev[0], prev[1], p[0], p[1], s.rgb, 2)
        prev = p
      }
      for (const r of runs) {
        const v = s.value(r)
        if (Number.isFinite(v)) mark(xOf(r.agents), yOf(v), s.rgb, r.balancer !== "none")
      }
    }
  }
  const rss = (r: Run) => r.processes.map((p) => p.rssEndMb ?? p.rssAfterConnectMb)
  panel(50, 290, "p99 ms (log)", [
    { name: "API", rgb: [200, 40, 40], value: (r) => r.api.p99 },
    { name: "delivery", rgb: [230, 140, 0], value: (r) => r.delivery.p99 }
  ], true)
  panel(360, 600, "RSS MB", [
    { name: "largest process", rgb: [40, 80, 200], value: (r) => Math.max(...rss(r).filter(Number.isFinite)) },
    {
      name: "all processes",
      rgb: [30, 150, 80],
      value: (r) => rss(r).filter(Number.isFinite).reduce((a, b) => a + b, 0)
    }
  ])
  // ticks on the agents axis: a round step giving at most 10 ticks
  const step = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000].find((s) => maxN / s <= 10) ?? 100_000
  for (let n = 0; n <= maxN; n += step) {
    c.line(xOf(n), 600, xOf(n), 606, [0, 0, 0])
    c.text(xOf(n) - 8, 612, n >= 1_000 ? `${n / 1_000}k` : String(n), 2)
  }
  c.text(right - 50, 636, "agents", 2)
  return encodePng(c.pixels)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // [--rate R] (20) [--since <ISO time>]: the runs at that rate, from that time on
  const { options, words } = parseArgs(process.argv.slice(2))
  const rate = Number(options.rate ?? 20)
  const since = options.since ?? ""
  const input = words[0] ?? "bench/fleet-results.json"
  const output = words[1] ?? "bench/fleet.png"
  const all = JSON.parse(Fs.readFileSync(input, "utf8")) as Record<string, Run>
  // the newest of each (agents, rate, nodes, balancer): keys start with the run's ISO time
  const newest = new Map<string, Run>()
  for (const key of Object.keys(all).sort()) {
    const r = all[key]!
    if (key < since || r.rate !== rate) continue
    newest.set(`${r.agents} ${r.rate} ${r.nodes} ${r.balancer}`, r)
  }
  Fs.writeFileSync(output, drawFleet([...newest.values()]))
  console.log(`${output}: ${newest.size} runs`)
}
