// `npm run bench -- mcp`: calls/second of the MCP who-am-I tool (`POST /mcp`, JSON-RPC `tools/call` "whoami", one
// call per request, as a streamable-HTTP client sends it) against `GET /api/agent/me` with the same key, same load
// tool, same run, in alternating slices. Goal: ratio ≥ 0.5.
import autocannon from "autocannon"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { cpuMs, load, report, seconds, spawnShoal } from "./support.js"

const mcpCalls = (url: string, key: string, options: { seconds: number; connections: number }) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    autocannon({
      url,
      method: "POST",
      duration: options.seconds,
      connections: options.connections,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } })
    }, (err, result) => (err ? reject(err) : resolve(result)))
  })

export const run = async () => {
  const duration = seconds()
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-mcp-"))
  const { base, proc: shoal } = await spawnShoal({ dataDir })
  try {
    const stamp = Date.now().toString(36)
    const owner = (await (await fetch(`${base}/api/accounts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ handle: `benchmcp${stamp}`, display_name: "Bench owner" })
    })).json()) as { api_key: string }
    const agent = (await (await fetch(`${base}/api/account/agents`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${owner.api_key}` },
      body: JSON.stringify({ handle: `mcp${stamp}`, display_name: "Bench agent" })
    })).json()) as { api_key: string }
    const key = agent.api_key
    const check = await (await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } })
    })).json() as { result?: { isError?: boolean } }
    if (check.result?.isError !== false) throw new Error(`whoami over MCP failed: ${JSON.stringify(check)}`)

    const meUrl = `${base}/api/agent/me`
    const headers = { authorization: `Bearer ${key}` }
    await load(meUrl, { seconds: 2, connections, headers })
    await mcpCalls(`${base}/mcp`, key, { seconds: 2, connections })
    const slices = 3
    const slice = Math.max(1, Math.round(duration / slices))
    const restRuns = []
    const mcpRuns = []
    // the server's CPU time around each slice: CPU per request does not depend on the neighbours' load
    const cpu = { rest: 0, mcp: 0 }
    const timed = async <A>(side: "rest" | "mcp", run: () => Promise<A>) => {
      const before = cpuMs(shoal.child.pid)
      const a = await run()
      const after = cpuMs(shoal.child.pid)
      if (before !== undefined && after !== undefined) cpu[side] += after - before
      return a
    }
    for (let i = 0; i < slices; i++) {
      restRuns.push(await timed("rest", () => load(meUrl, { seconds: slice, connections, headers })))
      mcpRuns.push(await timed("mcp", () => mcpCalls(`${base}/mcp`, key, { seconds: slice, connections })))
    }
    const total = (rs: Array<{ requests: { total: number } }>) => rs.reduce((a, r) => a + r.requests.total, 0)
    const perRequest = (ms: number, n: number) => (ms > 0 && n > 0 ? ms * 1000 / n : undefined)
    const restCpu = perRequest(cpu.rest, total(restRuns))
    const mcpCpu = perRequest(cpu.mcp, total(mcpRuns))
    const cpuText = (us: number | undefined) => (us === undefined ? "" : `  server CPU ${us.toFixed(0)} µs/request`)
    const mean = (rs: Array<{ requests: { average: number } }>) =>
      rs.reduce((a, r) => a + r.requests.average, 0) / rs.length
    const p99 = (rs: Array<{ latency: { p99: number } }>) => Math.max(...rs.map((r) => r.latency.p99))
    const bad = (rs: Array<autocannon.Result>) => rs.reduce((a, r) => a + r.non2xx + r.errors, 0)
    const rest = mean(restRuns)
    const mcp = mean(mcpRuns)
    console.log(
      `mcp bench: ${duration}s per side in ${slices} alternating slices, ${connections} connections, autocannon`
    )
    console.log(
      `  GET /api/agent/me            ${rest.toFixed(0)} req/s  p99 ${p99(restRuns)} ms${cpuText(restCpu)}` +
        (bad(restRuns) > 0 ? `  (${bad(restRuns)} non-2xx/errors!)` : "")
    )
    console.log(
      `  POST /mcp tools/call whoami  ${mcp.toFixed(0)} calls/s  p99 ${p99(mcpRuns)} ms${cpuText(mcpCpu)}` +
        (bad(mcpRuns) > 0 ? `  (${bad(mcpRuns)} non-2xx/errors!)` : "")
    )
    report({
      bench: "mcp",
      measure: "MCP tools/call whoami vs GET /api/agent/me",
      value: `${mcp.toFixed(0)} vs ${rest.toFixed(0)} calls/s`,
      figure: mcp / rest,
      goal: { atLeast: 0.5 }
    })
    console.log(
      `  ratio ${(mcp / rest).toFixed(2)}× (goal ≥ 0.50×)` +
        (restCpu !== undefined && mcpCpu !== undefined
          ? `; by server CPU per request ${(restCpu / mcpCpu).toFixed(2)}×`
          : "") +
        `  (load average ${Os.loadavg()[0]!.toFixed(1)})`
    )
  } finally {
    await shoal.stop()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
