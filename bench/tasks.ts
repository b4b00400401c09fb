// `npm run bench -- tasks`: requests/second of a page of 50 tasks (GET /api/agent/projects/<id>/tasks, a project of
// 1,000 tasks with assignees and comments) under 50 concurrent readers, against an Effect HttpApi hello-world, same
// load tool, same run. Goal: ratio ≥ 0.3. Embedded database; with BENCH_DATABASE_URL (a fresh database) also on a
// PostgreSQL server.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { alternatingSlices, freePort, load, report, seconds, spawnShoal, startHello, waitFor } from "./support.js"

const TASKS = Number(process.env.BENCH_TASKS ?? 1_000)

const post = async (url: string, key: string, body: unknown) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body)
  })
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`)
  return res.json() as Promise<any>
}

/** A project of TASKS tasks, a third assigned to each of two users, every tenth with two comments. */
const seed = async (base: string) => {
  const stamp = Date.now().toString(36)
  const signUp = (handle: string) =>
    fetch(`${base}/api/accounts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ handle, display_name: handle })
    }).then((r) => r.json() as Promise<{ api_key: string; user: { handle: string } }>)
  const owner = await signUp(`bencho${stamp}`)
  const helper = await signUp(`benchh${stamp}`)
  const { project } = await post(`${base}/api/agent/projects`, owner.api_key, { title: "bench" })
  const assignees = ["me", helper.user.handle, undefined]
  for (let i = 0; i < TASKS; i += 25) {
    await Promise.all(Array.from({ length: Math.min(25, TASKS - i) }, async (_, j) => {
      const n = i + j
      const { task } = await post(`${base}/api/agent/projects/${project.id}/tasks`, owner.api_key, {
        title: `task ${n}`,
        assigned_to: assignees[n % 3],
        deadline: "2027-01-01"
      })
      if (n % 10 === 0) {
        await post(`${base}/api/agent/tasks/${task.id}/comment`, owner.api_key, { content: "one" })
        await post(`${base}/api/agent/tasks/${task.id}/comment`, owner.api_key, { content: "two" })
      }
    }))
  }
  return { url: `${base}/api/agent/projects/${project.id}/tasks`, key: owner.api_key }
}

const measure = async (database: string | undefined) => {
  const duration = seconds()
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-tasks-"))
  const helloPort = await freePort()
  const { base: shoalBase, proc: shoal } = await spawnShoal({ dataDir, database })
  const hello = startHello(helloPort)
  try {
    const helloUrl = `http://127.0.0.1:${helloPort}/hello`
    await waitFor(helloUrl, hello)
    const seeded = Date.now()
    const { key, url } = await seed(shoalBase)
    const seedSeconds = (Date.now() - seeded) / 1000
    const headers = { authorization: `Bearer ${key}` }
    const check = (await (await fetch(url, { headers })).json()) as { tasks: Array<unknown>; meta: { total: number } }
    if (check.tasks.length !== 50 || check.meta.total !== TASKS) throw new Error("the seeded page is not 50 of 1,000")

    await load(helloUrl, { seconds: 2, connections })
    await load(url, { seconds: 2, connections, headers })
    const slices = 3
    const { base: hw, target: page } = await alternatingSlices({
      duration,
      slices,
      base: { pid: hello.child.pid, run: (seconds) => load(helloUrl, { seconds, connections }) },
      target: { pid: shoal.child.pid, run: (seconds) => load(url, { seconds, connections, headers }) }
    })
    const non2xx = page.failures
    const ratio = page.mean / hw.mean
    console.log(
      `tasks bench (${database ? "PostgreSQL server" : "embedded database"}): ${duration}s per server in ${slices}` +
        ` alternating slices, ${connections} connections, autocannon; seeded ${TASKS} tasks in ${
          seedSeconds.toFixed(1)
        }s`
    )
    console.log(
      `  hello-world HttpApi          ${hw.mean.toFixed(0)} req/s  p99 ${hw.p99} ms${hw.cpu}`
    )
    console.log(
      `  page of 50 tasks             ${page.mean.toFixed(0)} req/s  p99 ${page.p99} ms${page.cpu}` +
        (non2xx > 0 ? `  (${non2xx} non-2xx/errors!)` : "")
    )
    console.log(`  ratio ${ratio.toFixed(2)}× (goal ≥ 0.30×)`)
    report({
      bench: "tasks",
      measure: `page of 50 tasks vs hello-world (${database ? "server" : "embedded"})`,
      value: `${page.mean.toFixed(0)} vs ${hw.mean.toFixed(0)} req/s`,
      figure: ratio,
      goal: { atLeast: 0.3 }
    })
  } finally {
    await Promise.all([shoal.stop(), hello.stop()])
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export const run = async () => {
  await measure(undefined)
  if (process.env.BENCH_DATABASE_URL) await measure(process.env.BENCH_DATABASE_URL)
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
