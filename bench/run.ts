// `npm run bench -- <name…>`: runs the named benchmarks (all when none is named, or `all`), each against its
// baseline, then prints every figure beside its goal, with the machine's load average before and after.
import * as Fs from "node:fs"
import * as Os from "node:os"
import { summary } from "./support.js"

const known = [
  "auth",
  "fanout",
  "dns",
  "tasks",
  "heartbeat",
  "feed",
  "wallet",
  "mcp",
  "memory",
  "hostile",
  "writes",
  "overload"
]
  .filter((n) => Fs.existsSync(new URL(`./${n}.ts`, import.meta.url)))

const names = process.argv.slice(2).filter((a) => !a.startsWith("-") && a !== "all")
const loadAverage = () => Os.loadavg().map((l) => l.toFixed(1)).join(", ")
const started = new Date()
const loadBefore = loadAverage()
for (const name of names.length > 0 ? names : known) {
  if (!known.includes(name)) {
    console.error(`unknown bench "${name}"; known: ${known.join(", ")}`)
    process.exit(2)
  }
  try {
    const bench = (await import(`./${name}.js`)) as { run: () => Promise<void> }
    await bench.run()
  } catch (e) {
    console.error(`bench ${name} failed:`, e)
    process.exitCode = 1
  }
}

console.log(
  `\nsummary (${started.toISOString()}; ${Os.cpus().length} cores; load average ${loadBefore} before, ` +
    `${loadAverage()} after; ${((Date.now() - started.getTime()) / 60_000).toFixed(1)} min)`
)
console.log(summary())
