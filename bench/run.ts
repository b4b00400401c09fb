// `npm run bench -- <name…> [--option value | --option=value …]`: runs the named benchmarks (all when none is named,
// or `all`), each against its baseline, then prints every figure beside its goal, with the machine's load average
// before and after. Options go to every bench named (`npm run bench -- fleet --agents 500 --seconds 30`); a bench
// that takes none ignores them. `fleet` is heavy and runs only when named, never as part of `all`.
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
/** benches run only when named */
const onDemand = ["fleet"]

/**
 * The command line's bench names and options: `--x value` and `--x=value` set option x; `--x` followed by another
 * option or by nothing is `"true"`; every other word is a bench name.
 */
const parseArgs = (argv: ReadonlyArray<string>) => {
  const names: Array<string> = []
  const options: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith("--")) {
      if (arg !== "all") names.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    if (eq > 0) options[arg.slice(2, eq)] = arg.slice(eq + 1)
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith("--")) options[arg.slice(2)] = argv[++i]!
    else options[arg.slice(2)] = "true"
  }
  return { names, options }
}

const { names, options } = parseArgs(process.argv.slice(2))
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
