import { Clock, Duration, Effect, Layer } from "effect"
import { EventsChannel } from "../Realtime/EventsRepo.js"
import { Notifier } from "../Realtime/Notifier.js"
import { WebhookSender } from "../Realtime/Webhooks/Sender.js"
import { RETRY_DELAYS, webhookWorker } from "../Realtime/Webhooks/Worker.js"
import { Relay } from "../Relay.js"
import { Supervisor } from "../Supervisor.js"
import { type PushClaim, RelayRepo } from "./Repo.js"
import { pushHeaders } from "./Signing.js"

// at most this many relays pushed at once by a node; a relay's own events go one after the other, in order
const CONCURRENCY = 8
// new events wake the pusher; a retry that falls due, or a notice lost, is found by looking again at least this often
const IDLE_MAX_MS = 30_000

/**
 * Push delivery of relays configured `push`: each relay's feed, from its position, POSTed in the relay's envelope to
 * its webhook_url with the X-PowerLobster-* signature; a 2xx moves the position past the event. A failure waits
 * as webhooks do (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h) and tries that event again: nothing is
 * skipped, and the feed stays readable by polling meanwhile. State lives in the relays table, so a restart or
 * another node picks up where this one stopped. Runs where webhooks are delivered (WEBHOOK_WORKER).
 */
export const RelayPusherLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    if (!(yield* webhookWorker)) return
    const repo = yield* RelayRepo
    const relay = yield* Relay
    const sender = yield* WebhookSender
    const supervisor = yield* Supervisor
    const signals = yield* (yield* Notifier).subscribe(EventsChannel)
    // one page of events, each bounded by the timeout, fits in the lease
    const leaseMs = Duration.toMillis(sender.timeout) * 10 + 30_000

    const deliver = (r: PushClaim) =>
      Effect.gen(function*() {
        const url = r.webhookUrl!
        const verdict = yield* sender.check(url)
        let error: string | null = verdict.ok ? null : `refused: ${verdict.reason}`
        let delivered = 0
        if (error === null) {
          const page = yield* relay.mapped(r.userId, r.position, "push")
          for (const event of page.events) {
            const body = JSON.stringify(event)
            const at = yield* Clock.currentTimeMillis
            const outcome = yield* sender.send(url, pushHeaders(r.webhookSecret, at, body), body)
            if (!outcome.ok) {
              error = outcome.error
              break
            }
            yield* repo.advance(r.id, event.payload._meta.cursor)
            delivered++
          }
        }
        const now = yield* Clock.currentTimeMillis
        // failures in a row of the event at the position: one that follows a delivery is that event's first
        const attempts = error === null ? 0 : delivered > 0 ? 1 : r.pushAttempts + 1
        const delay = RETRY_DELAYS[Math.min(attempts, RETRY_DELAYS.length) - 1]!
        yield* repo.pushed(r.id, { attempts, nextAt: error === null ? null : now + delay, error })
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`relay push ${r.id} failed to run`, cause)))

    const round = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* repo.claimPush(now, now + leaseMs, CONCURRENCY)
      yield* Effect.forEach(claimed, deliver, { concurrency: CONCURRENCY, discard: true })
      // a full batch may have left others waiting: look again at once
      if (claimed.length === CONCURRENCY) return
      const due = yield* repo.nextPushDue
      const wait = due === null ? IDLE_MAX_MS : Math.min(IDLE_MAX_MS, Math.max(250, due - now))
      yield* Effect.raceFirst(signals.take, Effect.sleep(wait))
      // events come in bursts: a short pause lets one round take a burst, not one query per committed block
      yield* Effect.sleep(Duration.millis(100))
    }).pipe(
      // the database failing (SqlError): look again in 5 s; a defect restarts the loop
      Effect.catchAll((e) =>
        Effect.zipRight(Effect.logWarning("relay pusher round failed", e), Effect.sleep(Duration.seconds(5)))
      )
    )

    yield* Effect.forkScoped(supervisor.forever("relay", "pusher", round))
  })
).pipe(Layer.provide([RelayRepo.Default, WebhookSender.Default]))
