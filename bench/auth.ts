// `npm run bench -- auth`: requests/second of GET /api/agent/me (key lookup, rate limit, heartbeat, profile read)
// against an Effect HttpApi hello-world, same load tool, same run. Goal: ratio ≥ 0.5.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort, load, seconds, startTs, waitFor } from "./support.js"

export const run = async () => {
  const duration = seconds()
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 100)
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-auth-"))
  const shoalPort = await freePort()
  const helloPort = await freePort()
  const shoal = startTs("src/main.ts", {
    DATA_DIR: dataDir,
    PORT: String(shoalPort),
    WALLET_PORT: String(await freePort()),
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_MINUTE: String(1e9),
    DNS_PORT: "0",
    DATABASE_URL: ""
  })
  const hello = startTs("bench/hello-server.ts", {}, [String(helloPort)])
  try {
    const shoalBase = `http://127.0.0.1:${shoalPort}`
    const helloUrl = `http://127.0.0.1:${helloPort}/hello`
    await Promise.all([waitFor(`${shoalBase}/health`, shoal), waitFor(helloUrl, hello)])
    const res = await fetch(`${shoalBase}/api/accounts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ handle: `bench${Date.now().toString(36)}`, display_name: "Bench" })
    })
    const { api_key } = (await res.json()) as { api_key: string }
    const meUrl = `${shoalBase}/api/agent/me`
    const headers = { authorization: `Bearer ${api_key}` }

    // warm both (JIT, caches) before measuring
    await load(helloUrl, { seconds: 2, connections })
    await load(meUrl, { seconds: 2, connections, headers })
    // alternate slices so a burst of background load hits both sides alike
    const slices = 3
    const baseRuns = []
    const meRuns = []
    for (let i = 0; i < slices; i++) {
      baseRuns.push(await load(helloUrl, { seconds: Math.max(1, Math.round(duration / slices)), connections }))
      meRuns.push(await load(meUrl, { seconds: Math.max(1, Math.round(duration / slices)), connections, headers }))
    }
    const mean = (rs: Array<{ requests: { average: number } }>) =>
      rs.reduce((a, r) => a + r.requests.average, 0) / rs.length
    const p99 = (rs: Array<{ latency: { p99: number } }>) => Math.max(...rs.map((r) => r.latency.p99))
    const base = { requests: { average: mean(baseRuns) }, latency: { p99: p99(baseRuns) } }
    const me = { requests: { average: mean(meRuns) }, latency: { p99: p99(meRuns) } }
    const non2xx = meRuns.reduce((a, r) => a + r.non2xx + r.errors, 0)
    const ratio = me.requests.average / base.requests.average
    console.log(
      `auth bench: ${duration}s per server in ${slices} alternating slices, ${connections} connections, autocannon`
    )
    console.log(`  hello-world HttpApi    ${base.requests.average.toFixed(0)} req/s  p99 ${base.latency.p99} ms`)
    console.log(
      `  GET /api/agent/me      ${me.requests.average.toFixed(0)} req/s  p99 ${me.latency.p99} ms` +
        (non2xx > 0 ? `  (${non2xx} non-2xx/errors!)` : "")
    )
    console.log(`  ratio ${ratio.toFixed(2)}× (goal ≥ 0.50×)`)
  } finally {
    await Promise.all([shoal.stop(), hello.stop()])
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
