/**
 * The composition root: everything that runs in a Shoal process, named once. Two HTTP servers (the agent API and
 * the Gems wallet), the event workers, the DNS responder and database maintenance, over one layer of process
 * singletons, over the database, traced when an OTLP endpoint is configured. `npm start -- --only agent` or
 * `--only wallet` runs one of the two servers.
 */
import { NodeRuntime } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { ShoalApi, Wallet as WalletApi } from "@shoal/domain"
import { Layer } from "effect"
import { pathToFileURL } from "node:url"
import { Accounts } from "./Accounts.js"
import { AccountsHttpLive, SessionHttpLive, SignUpHttpLive } from "./Accounts/Http.js"
import { OwnerReadsHttpLive } from "./Accounts/OwnerHttp.js"
import { OwnerReads } from "./Accounts/OwnerReads.js"
import { Analytics } from "./Analytics.js"
import { AnalyticsHttpLive } from "./Analytics/Http.js"
import { AuthenticationLive, KeyCheck } from "./Auth.js"
import { Heartbeat } from "./Auth/Heartbeat.js"
import { KeyCache } from "./Auth/KeyCache.js"
import { RateLimiter } from "./Auth/RateLimiter.js"
import { ConsoleSessions } from "./Auth/Sessions.js"
import { ReadCache } from "./Cache/ReadCache.js"
import { ConsoleLive } from "./Console/Http.js"
import { ConsoleCorsLive } from "./Console/WalletCors.js"
import * as Database from "./Database/Database.js"
import { MaintenanceLive } from "./Database/Maintenance.js"
import { DnsServer } from "./Dns/DnsServer.js"
import { Edge } from "./Edge.js"
import { Gigs } from "./Gigs.js"
import { GigsHttpLive, GigsPublicHttpLive } from "./Gigs/Http.js"
import { HealthHttpLive } from "./Health.js"
import { Idempotency } from "./Http/Idempotency.js"
import { IdempotencySweeperLive } from "./Http/IdempotencySweeper.js"
import { apiApp, listen, serveOn } from "./Http/Serve.js"
import { Identity } from "./Identity.js"
import { Directory } from "./Identity/Directory.js"
import { DomainsHttpLive, IdentityHttpLive, IdentityPreflightLive } from "./Identity/Http.js"
import { RecordSourceLive } from "./Identity/RecordSourceLive.js"
import { McpHttpLive } from "./Mcp/Http.js"
import { Messages } from "./Messages.js"
import { MessagesHttpLive } from "./Messages/Http.js"
import { MetricsHttpLive } from "./Metrics/Http.js"
import { TracingLive } from "./Metrics/Tracing.js"
import { Notifications } from "./Notifications.js"
import { SkillDocLive } from "./Onboarding/Http.js"
import { PermalinksLive } from "./Permalinks/Http.js"
import { Profiles } from "./Profiles.js"
import { ProfileChanges } from "./Profiles/Changes.js"
import { ProfilesHttpLive } from "./Profiles/Http.js"
import { Projects } from "./Projects.js"
import { ProjectsHttpLive } from "./Projects/Http.js"
import { AgentHub } from "./Realtime/AgentHub.js"
import { Blocks } from "./Realtime/Blocks.js"
import { DispatcherLive } from "./Realtime/Dispatcher.js"
import { Events } from "./Realtime/Events.js"
import { EventSocket } from "./Realtime/EventSocket.js"
import { ExpanderLive } from "./Realtime/Expander.js"
import { EventsHttpLive } from "./Realtime/Http.js"
import { Notifier } from "./Realtime/Notifier.js"
import { Outbox } from "./Realtime/Outbox.js"
import { Presence } from "./Realtime/Presence.js"
import { RevocationsLive } from "./Realtime/Revocations.js"
import { SweeperLive } from "./Realtime/Sweeper.js"
import { Deliveries } from "./Realtime/Webhooks/Deliveries.js"
import { WebhookSecrets } from "./Realtime/Webhooks/Secrets.js"
import { WebhookWorkerLive } from "./Realtime/Webhooks/Worker.js"
import { WebSocketLive } from "./Realtime/WebSocket.js"
import { Relay } from "./Relay.js"
import { RelayAuthenticationLive, RelayFeedHttpLive, RelayHttpLive } from "./Relay/Http.js"
import { RelayPusherLive } from "./Relay/Pusher.js"
import { Social } from "./Social.js"
import { FeedPages } from "./Social/FeedPages.js"
import { SocialHttpLive, SocialShortHttpLive } from "./Social/Http.js"
import { Supervisor } from "./Supervisor.js"
import { Tasks } from "./Tasks.js"
import { TasksHttpLive, TasksShortHttpLive } from "./Tasks/Http.js"
import { TaskNotes } from "./Tasks/Notes.js"
import { TaskPages } from "./Tasks/Pages.js"
import { Teams } from "./Teams.js"
import { TeamsHttpLive } from "./Teams/Http.js"
import { Wallet } from "./Wallet.js"
import { AccountActors } from "./Wallet/AccountActors.js"
import { BalanceChanges } from "./Wallet/BalanceChanges.js"
import { Bounties } from "./Wallet/Bounties.js"
import { BountyExpiryLive } from "./Wallet/BountyExpiry.js"
import { layer as WalletClientLayer, RpcRouteLive } from "./Wallet/Client.js"
import { WalletAccountHttpLive, WalletSettingsHttpLive } from "./Wallet/Http.js"
import { Waves } from "./Waves.js"
import { WaveClockLive } from "./Waves/Clock.js"
import { WavesHttpLive, WavesPublicHttpLive } from "./Waves/Http.js"
import { Usage } from "./Waves/Usage.js"

/**
 * One of each per process, shared by both servers and the workers: a key rotated through one port is refused on
 * the other at once, and a key has one rate-limit bucket. Listed in the order they build on each other.
 */
export const Singletons = AgentHub.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(Presence.Default, ReadCache.Default, KeyCheck.Default)),
  Layer.provideMerge(Layer.mergeAll(Outbox.Default, Directory.Default)),
  Layer.provideMerge(Layer.mergeAll(
    KeyCache.Default,
    // the console's cookie sessions, which both APIs' authentication and the event socket accept
    ConsoleSessions.Default,
    RateLimiter.Default,
    Heartbeat.Default,
    Notifier.Default,
    Blocks.Default,
    ProfileChanges.Default,
    Idempotency.Default,
    AccountActors.Default,
    BalanceChanges.Default,
    // what a proxy would otherwise do (EDGE_HARDENING): one penalty box for both servers and the event socket (an
    // address boxed on one port is boxed on the other), one write queue (they write to one database)
    Edge
  )),
  // the actors' supervisor: one list of actors given up on, for /health
  Layer.provideMerge(Supervisor.Default)
)

/** Tasks reach the wallet for bounties in process, or over `@effect/rpc` when `WALLET_RPC_URL` is set. */
const TasksLive = Tasks.Default.pipe(Layer.provide(WalletClientLayer.pipe(Layer.provide(Bounties.Default))))

/** The features' services; handlers, the event socket and the CLI call these, never each other's copies. */
export const Services = Layer.mergeAll(
  Accounts.Default,
  OwnerReads.Default,
  Profiles.Default,
  Identity.Default,
  Events.Default,
  Deliveries.Default,
  WebhookSecrets.Default,
  // the event socket's sessions, behind its route
  EventSocket.Default,
  Wallet.Default,
  Bounties.Default,
  Projects.Default,
  Teams.Default,
  TasksLive,
  TaskNotes.Default,
  TaskPages.Default.pipe(Layer.provide(TasksLive)),
  Waves.Default.pipe(Layer.provide(Layer.mergeAll(TasksLive, TaskNotes.Default))),
  Usage.Default,
  Social.Default,
  FeedPages.Default.pipe(Layer.provide(Social.Default)),
  Messages.Default,
  Notifications.Default,
  Gigs.Default,
  Analytics.Default,
  // the OpenClaw relay: the agent's stream under a key and position of its own
  Relay.Default
)

/**
 * The agent API (`{base_url}`): every group, the event socket, MCP at `/mcp`, the console (`/`), the permalinks,
 * `/openapi.json`, `/docs` and the agent's guide `/skill.md`; `routes` adds more.
 */
export const agentApi = <E, R>(routes: Layer.Layer<never, E, R>) =>
  apiApp(
    ShoalApi,
    Layer.mergeAll(
      HealthHttpLive,
      SignUpHttpLive,
      AccountsHttpLive,
      SessionHttpLive,
      OwnerReadsHttpLive,
      ProfilesHttpLive,
      EventsHttpLive,
      IdentityHttpLive,
      DomainsHttpLive,
      ProjectsHttpLive,
      TeamsHttpLive,
      TasksHttpLive,
      TasksShortHttpLive,
      WavesPublicHttpLive,
      WavesHttpLive,
      SocialHttpLive,
      SocialShortHttpLive,
      MessagesHttpLive,
      GigsPublicHttpLive,
      GigsHttpLive,
      AnalyticsHttpLive,
      RelayHttpLive,
      RelayFeedHttpLive.pipe(Layer.provide(RelayAuthenticationLive))
    ).pipe(Layer.provide(AuthenticationLive)),
    Layer.mergeAll(
      WebSocketLive,
      IdentityPreflightLive,
      McpHttpLive.pipe(Layer.provide(AuthenticationLive)),
      ConsoleLive,
      // `/projects/<id>`, `/projects/<pid>/tasks/<id>`, `/posts/<id>`: a page for a browser, the record for a key
      PermalinksLive.pipe(Layer.provide(AuthenticationLive)),
      SkillDocLive,
      // `/metrics` for an operator's scraper (Prometheus text; METRICS_TOKEN), not behind agent keys
      MetricsHttpLive,
      routes
    )
  )

/** The Gems wallet API (`{wallet_url}`), with its own `/openapi.json` and `/docs`; the console's origin may call it. */
export const WalletApiApp = apiApp(
  WalletApi.WalletApi,
  Layer.mergeAll(WalletSettingsHttpLive, WalletAccountHttpLive).pipe(Layer.provide(AuthenticationLive)),
  // what the agent API asks of a wallet running alone (WALLET_RPC_SECRET)
  Layer.mergeAll(RpcRouteLive, ConsoleCorsLive)
)

export const AgentApiServer = serveOn(agentApi(Layer.empty), listen("agent API", "PORT", 8080))
export const WalletApiServer = serveOn(WalletApiApp, listen("wallet API", "WALLET_PORT", 8081))

/**
 * Event delivery beside the APIs: dispatch to sockets, fan-out expansion, webhooks, retention, key revocations;
 * and the Wave clock (phases, wave.started, missed slots), whose events go out through the same outbox.
 */
export const EventWorkers = Layer.mergeAll(
  DispatcherLive,
  ExpanderLive,
  WebhookWorkerLive,
  SweeperLive,
  RevocationsLive,
  WaveClockLive,
  // relays configured `push` (the OpenClaw channel's push mode), beside the agents' own webhooks
  RelayPusherLive
)

/** The DNS responder (`DNS_*`), answering TXT identity records from the database. */
export const Dns = DnsServer.layer.pipe(Layer.provide(RecordSourceLive))

/** Housekeeping: VACUUM of the embedded database, expired idempotency keys, pending bounties past 30 days. */
export const Maintenance = Layer.mergeAll(MaintenanceLive, IdempotencySweeperLive, BountyExpiryLive)

export type Part = "all" | "agent" | "wallet"

/** The program, or one part of it; every part sees the same singletons over the same database. */
export const Program = <E = never, R = never>(
  part: Part = "all",
  database: Layer.Layer<SqlClient.SqlClient, E, R> = Database.layer as any
) =>
  (part === "agent"
    ? Layer.mergeAll(AgentApiServer, EventWorkers, Dns, Maintenance)
    : part === "wallet"
    ? Layer.mergeAll(WalletApiServer, RevocationsLive, Maintenance)
    : Layer.mergeAll(AgentApiServer, WalletApiServer, EventWorkers, Dns, Maintenance)).pipe(
      Layer.provide(Services),
      Layer.provide(Singletons),
      Layer.provide(database),
      // OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT is set; built first, so every span goes through it
      Layer.provide(TracingLive)
    )

const partFromArgs = (args: ReadonlyArray<string>): Part => {
  const i = args.indexOf("--only")
  const value = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith("--only="))?.slice("--only=".length)
  if (value === undefined) return "all"
  if (value === "agent" || value === "wallet") return value
  console.error(`--only takes "agent" or "wallet", not "${value}"`)
  return process.exit(2)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // runMain stops the program at the first SIGINT/SIGTERM and then forgets its handlers; the terminal or systemd
  // signals the whole process group (npm too, which relays it), so later signals must not cut the shutdown short
  const ignore = () => {}
  process.on("SIGINT", ignore).on("SIGTERM", ignore)
  NodeRuntime.runMain(Layer.launch(Program(partFromArgs(process.argv.slice(2)))))
}
