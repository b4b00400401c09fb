import { Effect, Metric, MetricBoundaries, MetricLabel } from "effect"

/**
 * Every series `GET /metrics` shows, defined once. Effect's global metric registry holds the values;
 * src/Metrics/Prometheus.ts writes them out. Gauges of a state (sockets, pool, queue) are set when scraped, by the
 * samplers registered below, rather than on every change.
 */

// seconds, from a fast cached read to a request that waited on a busy embedded database
const latency = MetricBoundaries.fromIterable(
  [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
)

// event delivery: the bound is p99 < 1 s, so the buckets are finer around it
const delivery = MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 10, 30])

/** Labels `route` (the path template), `method`, `status` (its class, "2xx"). */
export const httpRequests = Metric.counter("shoal_http_requests_total", {
  description: "HTTP requests answered by the router, by route template, method and status class",
  incremental: true
})
export const httpDuration = Metric.histogram(
  "shoal_http_request_duration_seconds",
  latency,
  "Time from the router taking a request to its response, by route template, method and status class"
)

/** Labelled `kind` (the actor's kind: "agent", "account", "wave" …); the supervision helper counts each restart. */
export const actorRestarts = Metric.counter("shoal_actor_restarts_total", {
  description: "Supervised actors restarted after a defect, by actor kind",
  incremental: true
})

export const deliveryLag = Metric.histogram(
  "shoal_event_delivery_lag_seconds",
  delivery,
  "Time from an event's write (its transaction's start) to this node handing it to its sockets, per emitted block"
)

export const dbStatementDuration = Metric.histogram(
  "shoal_db_statement_duration_seconds",
  latency,
  "Time a statement spends in the database driver (after it has a connection)"
)

export const connectedSockets = Metric.gauge("shoal_connected_sockets", {
  description: "Open event sockets on this node"
})
export const connectedAgents = Metric.gauge("shoal_connected_agents", {
  description: "Agents with at least one open event socket on this node"
})
export const webhookQueue = Metric.gauge("shoal_webhook_queue_depth", {
  description: "Webhook deliveries waiting: state=pending (all not yet delivered or failed), state=due (due now)"
})
/** Labelled `state`: "total" (connections open), "idle", "waiting" (callers queued for one). */
export const dbPool = Metric.gauge("shoal_db_pool_connections", {
  description: "Database pool: open (total), idle, and callers waiting for a connection (waiting)"
})

// a label set is reused by identity: Effect caches a metric's hook per label array, so the same array costs a
// WeakMap lookup and a fresh one a registry lookup by hashed key
const labelSets = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
/** One label, as a stable array to pass to `unsafeUpdate`. */
export const labels = (key: string, value: string): ReadonlyArray<MetricLabel.MetricLabel> => {
  const id = `${key}\u0000${value}`
  let set = labelSets.get(id)
  if (set === undefined) labelSets.set(id, set = [MetricLabel.make(key, value)])
  return set
}

export const none: ReadonlyArray<MetricLabel.MetricLabel> = []

export const poolTotal = labels("state", "total")
export const poolIdle = labels("state", "idle")
export const poolWaiting = labels("state", "waiting")

/** The dispatcher, handing out an emit's events at `now` (its Clock): its `created_at` against the database's `now()`. */
export const observeDeliveryAt = (createdAt: string, now: number) =>
  deliveryLag.unsafeUpdate(Math.max(0, (now - Date.parse(createdAt)) / 1000), none)

/** As `observeDeliveryAt`, once per emit in rows read back: a fan-out's rows share their transaction's timestamp. */
export const observeDelivery = (rows: ReadonlyArray<{ readonly createdAt: string }>, now: number) => {
  let last = ""
  for (const row of rows) {
    if (row.createdAt === last) continue
    last = row.createdAt
    observeDeliveryAt(last, now)
  }
}

const samplers = new Set<Effect.Effect<void>>()

/** Registers a sampler (run before each scrape to set its gauges) while the scope, the life of what it reads, lasts. */
export const sampler = (sample: Effect.Effect<void>) =>
  Effect.acquireRelease(Effect.sync(() => samplers.add(sample)), () => Effect.sync(() => samplers.delete(sample)))

/** Runs every sampler; one that fails leaves its gauges at their last value. */
export const sampleAll = Effect.suspend(() =>
  Effect.forEach(samplers, (sample) => Effect.ignore(Effect.catchAllDefect(sample, () => Effect.void)), {
    concurrency: "unbounded",
    discard: true
  })
)

/** A statement started at `start` (`performance.now()`) has its answer. */
export const observeStatement = (start: number) =>
  dbStatementDuration.unsafeUpdate((performance.now() - start) / 1000, none)

/** A driver call timed into `dbStatementDuration`, its result or failure passed on. */
export const timeStatement = <A>(run: () => Promise<A>): Promise<A> => {
  const start = performance.now()
  return run().finally(() => observeStatement(start))
}
