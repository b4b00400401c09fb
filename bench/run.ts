// `npm run bench -- <name…>`: runs the named benchmarks (all when none is named), each against its baseline.
const benches: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  auth: () => import("./auth.js"),
  fanout: () => import("./fanout.js"),
  dns: () => import("./dns.js")
}

const names = process.argv.slice(2).filter((a) => !a.startsWith("-"))
for (const name of names.length > 0 ? names : Object.keys(benches)) {
  const load = benches[name]
  if (load === undefined) {
    console.error(`unknown bench "${name}"; known: ${Object.keys(benches).join(", ")}`)
    process.exit(2)
  }
  try {
    await (await load()).run()
  } catch (e) {
    console.error(`bench ${name} failed:`, e)
    process.exitCode = 1
  }
}
