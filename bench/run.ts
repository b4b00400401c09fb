// `npm run bench -- <name…>`: runs the named benchmarks (all when none is named, or `all`), each against its baseline.
import * as Fs from "node:fs"

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
