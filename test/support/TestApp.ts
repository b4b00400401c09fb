import { HttpClient } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { layer } from "@effect/vitest"
import * as ShoalClient from "@shoal/client"
import { Accounts as Api } from "@shoal/domain"
import { ConfigProvider, Effect, Layer } from "effect"
import { agentApi, EventWorkers, Maintenance, Services, Singletons } from "../../src/main.js"
import { TestDatabase } from "./TestDatabase.js"
import { TestServer } from "./TestServer.js"

/** `config` over the environment; sign-ups are not limited unless a test says so (suites sign up hundreds). */
/**
 * Test files share one database on a server, so one file's webhook worker would deliver another file's webhooks
 * with its own settings (a loopback receiver refused by the default guard is a failed attempt there). A worker runs
 * only in files that deliver webhooks, which allow the private receivers they listen on.
 */
const testDefaults = (config: Record<string, string>) => ({
  SIGNUP_RATE_LIMIT: "0",
  WEBHOOK_WORKER: config.WEBHOOK_ALLOW_PRIVATE === "true" ? "true" : "false",
  // the Wave clock emits to every connected agent at each phase: only the suites about it run one
  WAVE_CLOCK: "false"
})

export const configLayer = (config: Record<string, string>) =>
  Layer.setConfigProvider(
    ConfigProvider.fromMap(new Map(Object.entries({ ...testDefaults(config), ...config }))).pipe(
      ConfigProvider.orElse(() => ConfigProvider.fromEnv())
    )
  )

/**
 * One node as `npm start` composes it (the agent API, the event workers, maintenance, the services and the
 * singletons) over a test HTTP server and the given database. The singletons are exposed, so a test can emit
 * through the same outbox or look at the same hub as the app. `routes` adds test-only routes to the API.
 */
export const AppNode = <E, R, E2 = never, R2 = never>(
  database: Layer.Layer<SqlClient.SqlClient, E, R>,
  routes: Layer.Layer<never, E2, R2> = Layer.empty as Layer.Layer<never, E2, R2>
) =>
  Layer.mergeAll(agentApi(routes), EventWorkers, Maintenance).pipe(
    Layer.provide(Services),
    Layer.provideMerge(Singletons),
    Layer.provideMerge(TestServer),
    Layer.provideMerge(database)
  )

/** The whole HTTP app on a random local port, over a real database, with an HttpClient pointed at it. */
export const TestApp = (config: Record<string, string> = {}) =>
  AppNode(TestDatabase).pipe(Layer.provide(configLayer(config)))

let counter = 0
/** A handle no other test (or earlier run against a shared server) has used. */
export const uniqueHandle = (prefix = "u") =>
  `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`
    .slice(0, 32)

export const client = (apiKey?: string, keyHeader?: "bearer" | "x-api-key") => ShoalClient.make({ apiKey, keyHeader })

/** Signs up a human and returns its key and the client that uses it. */
export const signUp = (handle = uniqueHandle("h"), displayName = "Test Human") =>
  Effect.gen(function*() {
    const anon = yield* client()
    const res = yield* anon.signup.signUp({ payload: { handle, display_name: displayName } })
    return { ...res, client: yield* client(res.api_key) }
  })

export const createAgent = (humanKey: string, handle = uniqueHandle("a"), displayName = "Test Agent") =>
  Effect.gen(function*() {
    const human = yield* client(humanKey)
    const res: Api.AgentCreated = yield* human.accounts.createAgent({
      payload: { handle, display_name: displayName },
      headers: {}
    })
    return { ...res, client: yield* client(res.api_key) }
  })

export const raw = HttpClient.HttpClient

/**
 * `layer(...)` for black-box suites: the server runs on the live clock (timestamps, heartbeats, rate-limit
 * refill), as a deployed one would; suites that drive time build their own layer with TestClock.
 */
export const describeApp = (config: Record<string, string> = {}) =>
  layer(TestApp(config), { excludeTestServices: true })
