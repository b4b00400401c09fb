import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Clock, Config, Duration, Effect, FiberSet, Layer, Option, Queue } from "effect"
import { Pglite } from "../../Database/PgliteClient.js"
import { Supervisor } from "../../Supervisor.js"
import { envelopeJson, fromRaw } from "../EventRow.js"
import { WebhooksChannel } from "../EventsRepo.js"
import { Notifier } from "../Notifier.js"
import { retentionDays } from "../Sweeper.js"
import { type Claimed, DeliveriesRepo } from "./DeliveriesRepo.js"
import { WebhookSecrets } from "./Secrets.js"
import { WebhookSender } from "./Sender.js"

/** After the first attempt fails: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then the delivery is failed. */
export const RETRY_DELAYS: ReadonlyArray<number> = [
  Duration.seconds(5),
  Duration.minutes(5),
  Duration.minutes(30),
  Duration.hours(2),
  Duration.hours(5),
  Duration.hours(10),
  Duration.hours(10)
].map(Duration.toMillis)

// outlives an attempt (always 5 s past `WEBHOOK_TIMEOUT`) unless the node died during it: another node then takes
// the row over within a minute (on the embedded database, the restarted process gives every lease back at start)
const LEASE = Duration.seconds(45)

/** Whether this node delivers webhooks and pushes relays (WEBHOOK_WORKER, default true). */
export const webhookWorker = Config.boolean("WEBHOOK_WORKER").pipe(Config.withDefault(true))

// new rows arrive with a NOTIFY (and the Notifier polls on a real server): the cap is only a safety net
const IDLE_MAX_MS = 5 * 60_000

// an absolute deadline, measured again just before sleeping: the clock may have moved during the queries above
const sleepUntil = (at: number) => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Math.max(0, at - now)))

/**
 * Delivers webhooks from the stored schedule: claims due rows, POSTs them signed, logs every attempt and sets the
 * next one. State lives in the table, so a restart (or another node) picks up where this one stopped. Attempts run
 * in a pool of `WEBHOOK_CONCURRENCY` slots refilled as each ends, at most `WEBHOOK_PER_RECEIVER` per account: a
 * receiver that never answers holds only that many slots.
 */
export const WebhookWorkerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    // a node may serve sockets and the API only; another node (or a later start) delivers
    if (!(yield* webhookWorker)) return
    const sql = yield* SqlClient.SqlClient
    const repo = yield* DeliveriesRepo
    const secrets = yield* WebhookSecrets
    const sender = yield* WebhookSender
    const notifier = yield* Notifier
    const supervisor = yield* Supervisor
    const signals = yield* notifier.subscribe(WebhooksChannel)
    const concurrency = Math.max(1, yield* Config.integer("WEBHOOK_CONCURRENCY").pipe(Config.withDefault(8)))
    const perReceiver = Math.max(
      1,
      Math.min(concurrency, yield* Config.integer("WEBHOOK_PER_RECEIVER").pipe(Config.withDefault(2)))
    )
    const leaseMs = Math.max(
      Duration.toMillis(yield* Config.duration("WEBHOOK_LEASE").pipe(Config.withDefault(LEASE))),
      Duration.toMillis(sender.timeout) + 5_000
    )
    if (Option.isSome(yield* Effect.serviceOption(Pglite))) {
      // not fatal: a lease left is still taken over when it runs out
      yield* repo.releaseAll.pipe(Effect.catchAllCause((cause) => Effect.logWarning("webhook leases kept", cause)))
    }
    const retention = Duration.toMillis(Duration.days(yield* retentionDays))

    const attempt = (d: Claimed) =>
      Effect.gen(function*() {
        const attempt = d.attempt_count + 1
        const at = yield* Clock.currentTimeMillis
        const event = fromRaw(d)
        const outcome = d.webhook_url === null
          ? { ok: false, status: null, error: "the account has no webhook_url any more" }
          : yield* sender.signed(d.webhook_url, event, envelopeJson(event), at, secrets.current(d.user_id))
        const end = yield* Clock.currentTimeMillis
        const delay = d.webhook_url === null ? undefined : RETRY_DELAYS[attempt - 1]
        yield* repo.record({
          id: d.delivery_id,
          attempt,
          at,
          url: d.webhook_url,
          status: outcome.status,
          error: outcome.error,
          durationMs: Math.max(0, end - at),
          state: outcome.ok ? "succeeded" : delay === undefined ? "failed" : "pending",
          nextAt: outcome.ok || delay === undefined ? null : end + delay
        }).pipe(sql.withTransaction)
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`webhook delivery ${d.delivery_id} failed to run`, cause))
      )

    const running = yield* FiberSet.make<void>()
    // an attempt ended: a slot (and maybe an account's share) is free again
    const ended = yield* Queue.sliding<void>(1)
    const inFlight = new Map<Ids.UserId, number>()
    let active = 0
    const settle = (d: Claimed) =>
      Effect.sync(() => {
        active--
        const left = (inFlight.get(d.user_id) ?? 1) - 1
        if (left <= 0) inFlight.delete(d.user_id)
        else inFlight.set(d.user_id, left)
        ended.unsafeOffer(undefined)
      })

    const round = Effect.gen(function*() {
      const free = concurrency - active
      if (free <= 0) return yield* Queue.take(ended)
      const now = yield* Clock.currentTimeMillis
      const busy = [...inFlight].filter(([, n]) => n >= perReceiver).map(([user]) => user)
      const claimed = yield* repo.claim(now, now - retention, now + leaseMs, free, perReceiver, busy)
      // the query caps an account at perReceiver rows; one with attempts already in flight gets what is left
      const release: Array<string> = []
      for (const d of claimed) {
        const n = inFlight.get(d.user_id) ?? 0
        if (n >= perReceiver) {
          release.push(d.delivery_id)
          continue
        }
        inFlight.set(d.user_id, n + 1)
        active++
        yield* FiberSet.run(running, Effect.ensuring(attempt(d), settle(d)))
      }
      yield* repo.release(release)
      if (claimed.length > release.length) return
      const due = yield* repo.nextDue(now - retention)
      // a row due now but claimed by nobody (another node's open transaction, or an account whose receiver has
      // all its attempts in flight): look again shortly, not in a spin
      const wake = now + (due === null ? IDLE_MAX_MS : Math.min(IDLE_MAX_MS, Math.max(250, due - now)))
      yield* Effect.raceAll([Queue.take(signals), Queue.take(ended), sleepUntil(wake)])
    }).pipe(
      // the database failing (SqlError): look again at the next notice or in 5 s; a defect restarts the loop (the
      // attempts in flight, and their slots, outlive it)
      Effect.catchAll((e) =>
        Effect.zipRight(
          Effect.logWarning("webhook worker round failed", e),
          Effect.raceFirst(Queue.take(signals), Effect.sleep(Duration.seconds(5)))
        )
      )
    )

    yield* Effect.forkScoped(supervisor.forever("webhooks", "worker", round))
  })
).pipe(Layer.provide([DeliveriesRepo.Default, WebhookSender.Default]))
