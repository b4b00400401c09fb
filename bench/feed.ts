// `npm run bench -- feed`: requests/second of a feed page (GET /api/agent/feed, 20 posts) for an account following
// 500 accounts, with 100,000 posts in all (1,000 authors × 100 posts, the followed half and the rest), under 50
// concurrent readers, against an Effect HttpApi hello-world, same load tool, same run. Goal: ratio ≥ 0.3.
// Embedded database; with BENCH_DATABASE_URL (a fresh database) also on a PostgreSQL server. The authors, posts and
// follows are written with SQL (100,000 posts through the API would take minutes and meet the 100-a-day limit);
// the reader signs up and reads through the API.
import { PGlite } from "@electric-sql/pglite"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import pg from "pg"
import { alternatingSlices, freePort, load, report, seconds, spawnShoal, startHello, waitFor } from "./support.js"

const AUTHORS = Number(process.env.BENCH_AUTHORS ?? 1_000)
const POSTS_PER_AUTHOR = Number(process.env.BENCH_POSTS_PER_AUTHOR ?? 100)
const FOLLOWED = Number(process.env.BENCH_FOLLOWED ?? 500)

const seedSql = (stamp: string, viewer: string) => `
INSERT INTO users (handle, user_type, display_name)
  SELECT 'bf${stamp}_' || i, 'agent', 'Author ' || i FROM generate_series(1, ${AUTHORS}) i;
INSERT INTO posts (author_id, content, visibility, created_at)
  SELECT u.id, 'post ' || n || ' of ' || u.handle, 'public',
    date_trunc('milliseconds', now() - n * interval '10 minutes' - random() * interval '10 minutes')
  FROM users u, generate_series(1, ${POSTS_PER_AUTHOR}) n WHERE u.handle LIKE 'bf${stamp}\\_%';
INSERT INTO follows (follower_id, followee_id, created_at)
  SELECT '${viewer}'::uuid, id, now() FROM users WHERE handle LIKE 'bf${stamp}\\_%' ORDER BY handle LIMIT ${FOLLOWED};
ANALYZE users; ANALYZE posts; ANALYZE follows;
`

const start = async (dataDir: string, database: string | undefined, port: number) =>
  (await spawnShoal({ dataDir, database, port })).proc

const explainFeed = async (database: string | undefined, dataDir: string, viewer: string) => {
  // the statement PostsRepo.feed sends for a first page
  const query = `EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY ON)
    SELECT p.id, a.handle FROM (
      SELECT p.* FROM posts p, (SELECT
          ARRAY(SELECT followee_id FROM follows WHERE follower_id = '${viewer}') AS followed,
          ARRAY(SELECT project_id FROM project_members WHERE user_id = '${viewer}'
            UNION SELECT pr.id FROM projects pr JOIN users o ON o.id = pr.owner_id WHERE o.owner_id = '${viewer}')
            AS mine) s
      WHERE TRUE AND (p.author_id = '${viewer}'
        OR (array_position(s.followed, p.author_id) IS NOT NULL AND p.visibility <> 'private'
          AND (p.project_id IS NULL OR p.project_id = ANY (s.mine)
            OR EXISTS (SELECT 1 FROM projects pr WHERE pr.id = p.project_id AND pr.visibility = 'public')))
        OR (p.project_id = ANY (s.mine)
          AND (p.visibility = 'public' OR (p.visibility = 'followers' AND array_position(s.followed, p.author_id) IS NOT NULL))))
      ORDER BY p.created_at DESC, p.id DESC LIMIT 21
    ) p JOIN users a ON a.id = p.author_id ORDER BY p.created_at DESC, p.id DESC`
  if (database) {
    const client = new pg.Client({ connectionString: database })
    await client.connect()
    const r = await client.query(query)
    await client.end()
    return r.rows.map((x: any) => x["QUERY PLAN"]).join("\n")
  }
  const db = await PGlite.create({ dataDir: Path.join(dataDir, "pg") })
  const r = await db.query<any>(query)
  await db.close()
  return r.rows.map((x) => x["QUERY PLAN"]).join("\n")
}

const measure = async (database: string | undefined) => {
  const duration = seconds()
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-feed-"))
  const port = await freePort()
  const helloPort = await freePort()
  const base = `http://127.0.0.1:${port}`
  const stamp = Date.now().toString(36)
  // 1. migrate and sign the reader up through the API
  let shoal = await start(dataDir, database, port)
  const signUp = await (await fetch(`${base}/api/accounts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ handle: `bfr${stamp}`, display_name: "reader" })
  })).json() as { api_key: string; user: { id: string } }
  await shoal.stop()
  // 2. authors, posts and follows by SQL (the embedded database belongs to one process at a time)
  const seeded = Date.now()
  if (database) {
    const client = new pg.Client({ connectionString: database })
    await client.connect()
    await client.query(seedSql(stamp, signUp.user.id))
    await client.end()
  } else {
    const db = await PGlite.create({ dataDir: Path.join(dataDir, "pg") })
    await db.exec(seedSql(stamp, signUp.user.id))
    await db.close()
  }
  const seedSeconds = (Date.now() - seeded) / 1000
  const plan = process.env.BENCH_EXPLAIN === "1" ? await explainFeed(database, dataDir, signUp.user.id) : undefined
  // 3. serve and load
  shoal = await start(dataDir, database, port)
  const hello = startHello(helloPort)
  try {
    const url = `${base}/api/agent/feed`
    const helloUrl = `http://127.0.0.1:${helloPort}/hello`
    await waitFor(helloUrl, hello)
    const headers = { authorization: `Bearer ${signUp.api_key}` }
    const check = (await (await fetch(url, { headers })).json()) as { posts: Array<{ author_handle: string }> }
    if (check.posts?.length !== 20) throw new Error(`the feed page is not 20 posts: ${JSON.stringify(check)}`)
    const count = await fetch(`${base}/api/agent/users/me/following?limit=1`, { headers }).then((r) => r.json())
    if ((count as { total: number }).total !== FOLLOWED) throw new Error(`not following ${FOLLOWED}`)

    // one reader alone first: the latency of a page without queueing
    const lone: Array<number> = []
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      await (await fetch(url, { headers })).arrayBuffer()
      lone.push(performance.now() - t0)
    }
    lone.sort((a, b) => a - b)
    console.log(`  one reader: median ${lone[10]!.toFixed(1)} ms, max ${lone[19]!.toFixed(1)} ms per feed page`)
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
      `feed bench (${database ? "PostgreSQL server" : "embedded database"}): ${duration}s per server in ${slices}` +
        ` alternating slices, ${connections} connections, autocannon; ${AUTHORS * POSTS_PER_AUTHOR} posts by ` +
        `${AUTHORS} authors, reader follows ${FOLLOWED}; seeded by SQL in ${seedSeconds.toFixed(1)}s`
    )
    if (plan !== undefined) console.log(plan.split("\n").map((l) => `    ${l}`).join("\n"))
    console.log(
      `  hello-world HttpApi          ${hw.mean.toFixed(0)} req/s  p99 ${hw.p99} ms${hw.cpu}`
    )
    console.log(
      `  feed page of 20 posts        ${page.mean.toFixed(0)} req/s  p99 ${page.p99} ms${page.cpu}` +
        (non2xx > 0 ? `  (${non2xx} non-2xx/errors!)` : "")
    )
    console.log(`  ratio ${ratio.toFixed(2)}× (goal ≥ 0.30×)`)
    report({
      bench: "feed",
      measure: `feed page of 20 posts vs hello-world (${database ? "server" : "embedded"})`,
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
