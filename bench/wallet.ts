// `npm run bench -- wallet`: Gem transfers per second through the wallet API (POST /api/gems/transfer: auth,
// validation, the account actor, the ledger transaction with its event) against the SQL a correct transfer needs,
// issued directly through the database driver (BEGIN; lock both accounts in id order and apply conditionally in one
// statement; the recipient's gems.earned event in the outbox, ordered as the app orders it and, on a server, sent
// pipelined with COMMIT as the app sends it), same concurrency, same run,
// in alternating slices (BENCH_SLICES, default 3) so background load hits both alike. The ledger alone (without the
// event) is measured too, for reference. Goal: ratio ≥ 0.5 against ledger + event. Embedded database; with
// BENCH_DATABASE_URL (a fresh database) also on a PostgreSQL server. Findings: bench/README.md.
import { PGlite } from "@electric-sql/pglite"
import { Effect, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import pg from "pg"
import * as Database from "../src/Database/Database.js"
import { runMigrations } from "../src/Database/Migrations.js"
import * as PgliteClient from "../src/Database/PgliteClient.js"
import { cpuMs, freePort, freshDatabase, report, seconds, startTs, waitFor } from "./support.js"

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50)
const CONCURRENCY = Number(process.env.BENCH_CONNECTIONS ?? 32)
const START = 1_000_000

// the transfers' own client: node:http on kept-alive sockets, one per worker. The load generator shares the two
// cores with the server and PostgreSQL, and `fetch` (undici) cost the bench process about as much CPU per request as
// the transfer's own SQL costs the database (its CPU per transfer is printed beside each row)
const agent = new Http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
const send = (url: URL, key: string, body?: string) =>
  new Promise<boolean>((resolve) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${key}` }
    if (body !== undefined) {
      headers["content-type"] = "application/json"
      headers["content-length"] = Buffer.byteLength(body)
    }
    const req = Http.request(url, { method: body === undefined ? "GET" : "POST", agent, headers }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode === 200))
      res.on("error", () => resolve(false))
    })
    req.on("error", () => resolve(false))
    req.end(body)
  })

const post = async (url: string, key: string | undefined, body: unknown) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body)
  })
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`)
  return res.json() as Promise<any>
}

/** Runs `one` from CONCURRENCY workers for `secs` seconds; transfers per second and failures. */
const drive = async (secs: number, one: (i: number) => Promise<boolean>) => {
  const until = Date.now() + secs * 1000
  let done = 0
  let failed = 0
  let n = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < until) {
      if (await one(n++)) done++
      else failed++
    }
  }))
  return { perSecond: done / secs, failed }
}

const pair = (i: number) => {
  const from = (i * 7919) % ACCOUNTS
  const to = (from + 1 + ((i * 104729) % (ACCOUNTS - 1))) % ACCOUNTS
  return { from, to }
}

// the ledger's statement for a transfer, as src/Wallet/LedgerRepo.ts (move) issues it: both accounts locked in id
// order, then the conditional apply with the transaction and its entries, in one round trip
const MOVE = `WITH l AS (
    SELECT id, user_id, kind FROM gem_accounts
    WHERE (user_id = $1 AND kind = $2) OR (user_id = $3 AND kind = $4) ORDER BY id FOR UPDATE),
  d (user_id, kind, amount) AS (VALUES ($5::uuid, $6::text, $7::bigint), ($8::uuid, $9::text, $10::bigint)),
  j AS (SELECT l.id, d.amount FROM l JOIN d ON l.user_id IS NOT DISTINCT FROM d.user_id AND l.kind = d.kind),
  upd AS (
    UPDATE gem_accounts a SET balance = a.balance + j.amount,
      credited = a.credited + greatest(j.amount, 0), debited = a.debited + greatest(-j.amount, 0)
    FROM j WHERE (SELECT count(*) FROM l) = $11 AND a.id = j.id AND (a.kind = 'mint' OR a.balance + j.amount >= 0)
    RETURNING a.id, a.balance, j.amount),
  t AS (
    INSERT INTO gem_transactions (source, actor_id, reference_id, note, created_at)
    SELECT $12, $13, $14, $15, $16 WHERE (SELECT count(*) FROM upd) = $17 RETURNING id, seq),
  e AS (INSERT INTO gem_entries (transaction_id, txn_seq, account_id, amount)
    SELECT t.id, t.seq, upd.id, upd.amount FROM t CROSS JOIN upd)
  SELECT (SELECT id FROM t) AS transaction_id, l.user_id, l.kind, upd.balance::text AS balance
  FROM l LEFT JOIN upd ON upd.id = l.id`

// the outbox's statement for one event to one recipient, as src/Realtime/EventsRepo.ts (insertBlock) issues it: a
// cursor, the event row, a webhook delivery if the recipient has a webhook, the commit notice; on a server after the
// advisory lock that makes cursor order commit order (src/Realtime/Outbox.ts)
const event = (ordered: boolean) =>
  `${
    ordered
      ? `WITH ordered AS (SELECT pg_advisory_xact_lock(385185)),
      block AS (SELECT nextval('events_cursor_seq') AS lo FROM ordered)`
      : `WITH block AS (SELECT nextval('events_cursor_seq') AS lo)`
  },
  reserved AS (SELECT setval('events_cursor_seq', lo + 1::bigint - 1) AS hi FROM block),
  input AS (SELECT lo + x.n - 1 AS c, x.r, k.t, k.d FROM block, (SELECT $1::text AS t, $2::json AS d) k,
    unnest($3::uuid[]) WITH ORDINALITY AS x(r, n)),
  inserted AS (INSERT INTO events (cursor, id, recipient_id, type, data)
    SELECT c, 'evt_' || lpad(to_hex(c), 16, '0') || $4, r, t, d FROM input),
  hooked AS (INSERT INTO webhook_deliveries (event_cursor, user_id, next_attempt_at)
    SELECT s.c, s.r, $5::timestamptz FROM input s JOIN users u ON u.id = s.r WHERE u.webhook_url IS NOT NULL RETURNING 1)
  SELECT lo::text AS lo, now() AS created_at, pg_notify('shoal_events', lo::text || ' ' || $4), (SELECT hi FROM reserved),
    (SELECT count(*) FROM (SELECT pg_notify('shoal_webhooks', 'due') FROM (SELECT 1 FROM hooked LIMIT 1) h) w)
  FROM block`

type Query = (text: string, params: Array<unknown>) => Promise<Array<any>>

interface Driver {
  readonly query: Query
  /**
   * `f` in a transaction; the statement `f` answers (if any) goes with COMMIT: on a server in one simple-query
   * script, its values written in as literals, as a transaction sends its events (src/Database/CommitScript.ts); embedded on its
   * own before COMMIT, as the app does there.
   */
  readonly transaction: (f: (q: Query) => Promise<readonly [string, Array<unknown>] | false>) => Promise<boolean>
  readonly close: () => Promise<void>
}

const pgliteDriver = async (dir: string): Promise<Driver> => {
  await Effect.runPromise(
    Effect.provide(runMigrations, PgliteClient.layerFrom(PgliteClient.open({ dataDir: dir }))).pipe(Effect.scoped)
  )
  const db = new PGlite(dir)
  // PGlite is one session: transactions one at a time, as the app's FIFO lock does
  let chain: Promise<unknown> = Promise.resolve()
  return {
    query: async (text, params) => (await db.query(text, params)).rows as Array<any>,
    transaction: (f) => {
      const next = chain.then(() =>
        db.transaction(async (tx) => {
          const last = await f(async (text, params) => (await tx.query(text, params)).rows as Array<any>)
          if (last === false) return false
          if (last[0] !== "") await tx.query(last[0], last[1])
          return true
        })
      )
      chain = next.catch(() => undefined)
      return next
    },
    close: () => db.close()
  }
}

const pgDriver = async (url: string): Promise<Driver> => {
  await Effect.runPromise(
    Effect.provide(runMigrations, Database.layerPg(Redacted.make(url))).pipe(Effect.scoped)
  )
  const pool = new pg.Pool({ connectionString: url, max: 5, pipeline: true } as pg.PoolConfig)
  return {
    query: async (text, params) => (await pool.query(text, params)).rows,
    transaction: async (f) => {
      const c = await pool.connect()
      try {
        // pipelined: the first statement goes right behind BEGIN, without waiting for its answer
        const begin = c.query("BEGIN")
        const last = await f(async (text, params) => (await c.query(text, params)).rows)
        await begin
        if (last === false) {
          await c.query("ROLLBACK")
          return false
        }
        // the last statement pipelined with its COMMIT (one round trip), as Shoal's transactions send theirs
        if (last[0] === "") await c.query("COMMIT")
        else await Promise.all([c.query(last[0], last[1] as Array<unknown>), c.query("COMMIT")])
        return true
      } catch (e) {
        await c.query("ROLLBACK")
        throw e
      } finally {
        c.release()
      }
    },
    close: () => pool.end()
  }
}

/** Accounts of its own for the direct transfers, on a database of its own; `transfer(i)` runs one. */
const direct = async (driver: Driver, ordered: boolean) => {
  const stamp = Date.now().toString(36)
  const ids: Array<string> = []
  for (let i = 0; i < ACCOUNTS; i++) {
    const [u] = await driver.query(
      `INSERT INTO users (handle, user_type, display_name) VALUES ($1, 'agent', 'bench') RETURNING id`,
      [`bd${stamp}${i}`]
    )
    ids.push(u.id)
  }
  await driver.query(
    `UPDATE gem_accounts SET balance = $1 WHERE kind = 'available' AND user_id = ANY($2::uuid[])`,
    [START, ids]
  )
  const eventSql = event(ordered)
  return (withEvent: boolean) => async (i: number) => {
    const { from, to } = pair(i)
    return driver.transaction(async (q) => {
      const [a, b] = [ids[from], ids[to]]
      const now = new Date().toISOString()
      const rows = await q(MOVE, [
        a,
        "available",
        b,
        "available",
        a,
        "available",
        -1,
        b,
        "available",
        1,
        2,
        "tip",
        a,
        null,
        null,
        now,
        2
      ])
      if (rows[0]?.transaction_id == null) return false
      if (!withEvent) return ["", []]
      const data = JSON.stringify({ amount: 1, source: "tip", task_id: null })
      const salt = Math.random().toString(16).slice(2, 18)
      return [eventSql, ["gems.earned", data, `{${b}}`, salt, now]]
    })
  }
}

const measure = async (database: string | undefined) => {
  const secs = seconds()
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-wallet-"))
  const rawDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-bench-wallet-raw-"))
  const walletPort = await freePort()
  const shoalPort = await freePort()
  const shoal = startTs("src/main.ts", {
    DATA_DIR: dataDir,
    PORT: String(shoalPort),
    WALLET_PORT: String(walletPort),
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_MINUTE: String(1e9),
    DNS_PORT: "0",
    DATABASE_URL: database ?? ""
  })
  try {
    const base = `http://127.0.0.1:${shoalPort}`
    const wallet = `http://127.0.0.1:${walletPort}`
    // a fresh embedded database initialises for minutes on a loaded machine
    await waitFor(`${base}/health`, shoal, 300_000)
    const stamp = Date.now().toString(36)
    const human = await post(`${base}/api/accounts`, undefined, { handle: `bw${stamp}`, display_name: "bench" })
    const agents: Array<{ key: string; handle: string }> = []
    for (let i = 0; i < ACCOUNTS; i++) {
      const a = await post(`${base}/api/account/agents`, human.api_key, { handle: `bw${stamp}${i}`, display_name: "b" })
      agents.push({ key: a.api_key, handle: a.agent.handle })
      await post(`${wallet}/api/gems/award`, human.api_key, { to_agent: a.agent.handle, amount: START })
    }
    const transferUrl = new URL(`${wallet}/api/gems/transfer`)
    const transfer = (i: number) => {
      const { from, to } = pair(i)
      return send(transferUrl, agents[from]!.key, JSON.stringify({ to_agent: agents[to]!.handle, amount: 1 }))
    }
    // the floor under any authenticated call: auth and one keyed read (the balance), through the same server
    const balanceUrl = new URL(`${wallet}/api/gems/balance`)
    const balance = (i: number) => send(balanceUrl, agents[pair(i).from]!.key)
    // the direct run gets a database of its own beside the server's, so the two never share rows or locks
    const fresh = database ? await freshDatabase("wallet", database) : undefined
    const driver = fresh ? await pgDriver(fresh.url) : await pgliteDriver(rawDir)
    const api = { done: 0, failed: 0, cpu: 0, client: 0 }
    const full = { done: 0, failed: 0, cpu: 0, client: 0 }
    const ledger = { done: 0, failed: 0, cpu: 0, client: 0 }
    const read = { done: 0, failed: 0, cpu: 0, client: 0 }
    try {
      const one = await direct(driver, database !== undefined)
      // warm both (JIT, caches) before measuring
      await drive(2, transfer)
      await drive(2, one(true))
      const slices = Number(process.env.BENCH_SLICES ?? 3)
      const slice = secs / slices
      const ownCpu = () => {
        const u = process.cpuUsage()
        return (u.user + u.system) / 1000
      }
      // the server's CPU (when the slice goes through it) and the bench process's own: the driving loop with the
      // HTTP client, or the driver with the direct transfers
      const timed = async (into: typeof api, f: (i: number) => Promise<boolean>, pid: number | undefined) => {
        // a pause for the event loop first: embedded, the direct slices before kept this process's loop busy in the
        // database, so the server's close of the client's idle kept-alive sockets (after 5 s) was not seen yet, and
        // the first request of each worker went out on a closed socket (32 failed per slice)
        await new Promise((resolve) => setTimeout(resolve, 100))
        const server0 = pid === undefined ? 0 : cpuMs(pid) ?? 0
        const own0 = ownCpu()
        const r = await drive(slice, f)
        into.client += ownCpu() - own0
        if (pid !== undefined) into.cpu += (cpuMs(pid) ?? server0) - server0
        into.done += r.perSecond * slice
        into.failed += r.failed
      }
      for (let s = 0; s < slices; s++) {
        await timed(api, transfer, shoal.child.pid)
        await timed(full, one(true), undefined)
        await timed(ledger, one(false), undefined)
        await timed(read, balance, shoal.child.pid)
      }
    } finally {
      await driver.close()
      await fresh?.drop()
    }
    const rate = (r: typeof api) => r.done / secs
    const perDone = (ms: number, r: typeof api) => (ms * 1000 / r.done).toFixed(0)
    const cpu = (r: typeof api, per = "transfer") =>
      (r.cpu > 0 ? `  server CPU ${perDone(r.cpu, r)} µs/${per}` : "") +
      `  bench process ${perDone(r.client, r)} µs/${per}`
    const failed = (r: typeof api) => (r.failed > 0 ? `  (${r.failed} failed!)` : "")
    const ratio = rate(api) / rate(full)
    console.log(
      `wallet bench (${database ? "PostgreSQL server" : "embedded database"}): ${secs}s each in alternating slices, ` +
        `${CONCURRENCY} concurrent transfers of 1 Gem over ${ACCOUNTS} accounts; load ${Os.loadavg()[0]!.toFixed(1)}`
    )
    // embedded, the direct transfers run in the bench process itself, so its CPU is theirs (plus the driving loop)
    console.log(
      `  ledger + event SQL through the driver  ${rate(full).toFixed(0).padStart(5)} transfers/s` + cpu(full) +
        failed(full)
    )
    console.log(
      `  ledger SQL alone (reference)           ${rate(ledger).toFixed(0).padStart(5)} transfers/s` + cpu(ledger) +
        failed(ledger)
    )
    console.log(
      `  POST /api/gems/transfer                ${rate(api).toFixed(0).padStart(5)} transfers/s` + cpu(api) +
        failed(api)
    )
    console.log(
      `  GET /api/gems/balance (reference)      ${rate(read).toFixed(0).padStart(5)} requests/s ` +
        cpu(read, "request") + failed(read)
    )
    report({
      bench: "wallet",
      measure: `Gem transfers via the API vs the same SQL direct (${database ? "server" : "embedded"})`,
      value: `${rate(api).toFixed(0)} vs ${rate(full).toFixed(0)} transfers/s`,
      figure: ratio,
      goal: { atLeast: 0.5 }
    })
    console.log(
      `  ratio ${ratio.toFixed(2)}× (goal ≥ 0.50×); against the ledger alone ${(rate(api) / rate(ledger)).toFixed(2)}×`
    )
  } finally {
    await shoal.stop()
    Fs.rmSync(dataDir, { recursive: true, force: true })
    Fs.rmSync(rawDir, { recursive: true, force: true })
  }
}

export const run = async () => {
  await measure(undefined)
  if (process.env.BENCH_DATABASE_URL) await measure(process.env.BENCH_DATABASE_URL)
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
