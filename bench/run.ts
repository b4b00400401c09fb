// `npm run bench -- <name…> [--option value | --option=value …]`: runs the named benchmarks (all when none is named,
// or `all`), each against its baseline, then prints every figure beside its goal, with the machine's load average
// before and after. Options go to every bench named (`npm run bench -- fleet --agents 500 --seconds 30`); a bench
// that takes none ignores them. `fleet` is heavy and runs only when named, never as part of `all`.
import * as Fs from "node:fs"
import * as Os from "node:os"
import { parseArgs, summary } from "./support.js"

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
/** benches run only when named */
const onDemand = ["fleet"]

// bench names (every word but "all") and options (`--x value`, `--x=value`, `--x`)
const { options, words } = parseArgs(process.argv.slice(2))
const names = words.filter((w) => w !== "all")
const loadAverage = () => Os.loadavg().map((l) => l.toFixed(1)).join(", ")
const started = new Date()
const loadBefore = loadAverage()
for (const name of names.length > 0 ? names : known) {
  if (!known.includes(name) && !onDemand.includes(name)) {
    console.error(`unknown bench "${name}"; known: ${[...known, ...onDemand].join(", ")}`)
    process.exit(2)
  }
  try {
    const bench = (await import(`./${name}.js`)) as { run: (options: Record<string, string>) => Promise<void> }
    await bench.run(options)
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
