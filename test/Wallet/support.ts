import { FetchHttpClient, HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import * as ShoalClient from "@shoal/client"
import { Context, Effect, Layer } from "effect"
import * as Net from "node:net"
import { listen } from "../../src/Http/Serve.js"
import { agentApi, EventWorkers, Maintenance, Services, Singletons, WalletApiApp } from "../../src/main.js"
import { configLayer } from "../support/TestApp.js"
import { TestDatabase } from "../support/TestDatabase.js"
import { TestServer } from "../support/TestServer.js"

/** Where the test's wallet API listens (its own port, as in production). */
export class WalletUrl extends Context.Tag("test/WalletUrl")<WalletUrl, string>() {}

export const WalletNode = (port: number) =>
  Layer.merge(
    WalletApiApp,
    Layer.effect(
      WalletUrl,
      Effect.map(HttpServer.HttpServer, (s) => `http://127.0.0.1:${(s.address as HttpServer.TcpAddress).port}`)
    )
  ).pipe(
    // as in production: the server's HTTP_* deadlines come from the config (a test may lengthen them)
    Layer.provide(listen("wallet API", "TEST_WALLET_PORT", port))
  )

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = Net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as Net.AddressInfo
      s.close(() => resolve(port))
    })
  })

export type WalletMode = "in-process" | "rpc"

/**
 * The agent API on the test server (its HttpClient) and the wallet API on a port of its own. `rpc`: the agent API
 * reaches the wallet over `@effect/rpc` on that port (WALLET_RPC_URL), as with `--only agent` beside `--only wallet`.
 */
export const WalletTestApp = (config: Record<string, string> = {}, mode: WalletMode = "in-process") =>
  Layer.unwrapEffect(Effect.map(Effect.promise(freePort), (port) => {
    const rpc: Record<string, string> = mode === "rpc"
      ? { WALLET_RPC_URL: `http://127.0.0.1:${port}/rpc`, WALLET_RPC_SECRET: "test-rpc-secret" }
      : {}
    return Layer.mergeAll(agentApi(Layer.empty), WalletNode(port), EventWorkers, Maintenance).pipe(
      // the services stay visible: a test can run a sweeper beside the app under its own clock
      Layer.provideMerge(Services),
      Layer.provideMerge(Singletons),
      Layer.provideMerge(TestServer),
      Layer.provideMerge(TestDatabase),
      Layer.provide(configLayer({ ...config, ...rpc }))
    )
  }))

export const describeWallet = (config: Record<string, string> = {}, mode: WalletMode = "in-process") =>
  layer(WalletTestApp(config, mode), { excludeTestServices: true })

/** The typed wallet client for a key. */
export const walletClient = (apiKey?: string) =>
  Effect.flatMap(
    WalletUrl,
    (baseUrl) => ShoalClient.makeWallet({ baseUrl, apiKey }).pipe(Effect.provide(FetchHttpClient.layer))
  )

/** A request to the wallet outside the typed client: status, headers and JSON body. */
export const walletRaw = (
  method: "GET" | "POST",
  path: string,
  options: { readonly key?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {}
) =>
  Effect.flatMap(WalletUrl, (base) =>
    Effect.promise(async () => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
          ...options.headers
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {})
      })
      const text = await res.text()
      return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) }
    }))

/**
 * The ledger's invariant, checked after every wallet test: every ledger transaction's entries sum to zero, each
 * account's balance equals the sum of its entries, no account but mint is below zero, and the Gems held by users
 * equal minted − burned (burn and expiry). One statement, so one snapshot even while other files write.
 */
export const expectLedgerInvariant = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<Record<string, string>>`SELECT
    (SELECT count(*) FROM (SELECT transaction_id FROM gem_entries GROUP BY transaction_id
      HAVING sum(amount) <> 0) x)::text AS unbalanced,
    (SELECT count(*) FROM gem_transactions t
      WHERE NOT EXISTS (SELECT 1 FROM gem_entries e WHERE e.transaction_id = t.id))::text AS empty,
    (SELECT count(*) FROM gem_accounts a
      WHERE a.balance <> (SELECT coalesce(sum(amount), 0) FROM gem_entries e WHERE e.account_id = a.id))::text AS drifted,
    (SELECT count(*) FROM gem_accounts WHERE kind <> 'mint' AND balance < 0)::text AS negative,
    (SELECT coalesce(sum(balance), 0) FROM gem_accounts WHERE user_id IS NOT NULL)::text AS held,
    (SELECT -coalesce(sum(e.amount), 0) FROM gem_entries e JOIN gem_accounts a ON a.id = e.account_id
      WHERE a.kind = 'mint')::text AS minted,
    (SELECT coalesce(sum(e.amount), 0) FROM gem_entries e JOIN gem_accounts a ON a.id = e.account_id
      WHERE a.kind IN ('burn', 'expiry'))::text AS burned`
  expect({ unbalanced: row!.unbalanced, empty: row!.empty, drifted: row!.drifted, negative: row!.negative }).toEqual({
    unbalanced: "0",
    empty: "0",
    drifted: "0",
    negative: "0"
  })
  expect(BigInt(row!.held!)).toBe(BigInt(row!.minted!) - BigInt(row!.burned!))
}).pipe(Effect.orDie)

/** A wallet test: the body, then the ledger invariant, whatever the body did. */
export const withInvariant = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(body, (a) => Effect.as(expectLedgerInvariant, a))
