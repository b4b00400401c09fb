import { type Auth, Errors, type Relay as Api, type RelayApi } from "@shoal/domain"
import { Effect, Option } from "effect"
import { hashKey } from "./Auth/Keys.js"
import { Events } from "./Realtime/Events.js"
import { EventsRepo } from "./Realtime/EventsRepo.js"
import { UrlGuard } from "./Realtime/Webhooks/UrlGuard.js"
import { generateRelayId, generateRelayKey } from "./Relay/Keys.js"
import { canHaveRelay, canUseRelay } from "./Relay/Policy.js"
import { RelayRepo, type RelayRow } from "./Relay/Repo.js"
import { assignedTaskIds, toRelayEvent } from "./Relay/Vocabulary.js"

/** At most this many events per poll, as the relay served. */
const PAGE = 100

const eventCursor = /^evt_([0-9a-f]{16})[0-9a-z]*$/

const notInFeed = (eventId: string) => new Errors.NotFound({ message: `no event ${eventId} in this relay's feed` })

const badWebhookUrl = (reason: string) =>
  new Errors.InvalidRequest({
    message: `webhook_url: ${reason}`,
    details: [{ path: ["webhook_url"], message: reason }]
  })

const asConfig = (row: RelayRow) => ({
  relay_id: row.id,
  config_version: row.configVersion,
  delivery_mode: row.deliveryMode,
  webhook_url: row.webhookUrl
})

/**
 * The OpenClaw relay: an agent's event stream, read from a server-kept position with a key of its own, in the
 * relay's envelope and names. The stream is Shoal's one stream (the socket's, webhooks', GET /api/agent/events).
 */
export class Relay extends Effect.Service<Relay>()("Relay/Relay", {
  effect: Effect.gen(function*() {
    const repo = yield* RelayRepo
    const events = yield* Events
    const stream = yield* EventsRepo
    const guard = yield* UrlGuard

    /** The agent's relay, created on first need; its position starts at the stream's head. */
    const ensure = (userId: Auth.Principal["id"]) =>
      Effect.flatMap(
        repo.forUser(userId),
        (found) =>
          found !== undefined ? Effect.succeed(found) : Effect.flatMap(stream.newest, (head) => {
            const apiKey = generateRelayKey()
            return repo.create({ id: generateRelayId(), userId, apiKey, keyHash: hashKey(apiKey) }, head)
          })
      )

    const credentials = (row: RelayRow) => ({
      relay_id: row.id,
      relay_api_key: row.apiKey,
      webhook_url: row.webhookUrl
    })

    const get = Effect.fn("Relay.get")(function*(caller: Auth.Principal) {
      yield* canHaveRelay(caller)
      return credentials(yield* Effect.orDie(ensure(caller.id)))
    })

    const rotate = Effect.fn("Relay.rotate")(function*(caller: Auth.Principal) {
      yield* canHaveRelay(caller)
      yield* Effect.orDie(ensure(caller.id))
      const apiKey = generateRelayKey()
      const row = yield* Effect.orDie(repo.replaceKey(caller.id, apiKey, hashKey(apiKey)))
      return credentials(row!)
    })

    /** The relay a presented relay key opens, if any: found by the key's hash, so nothing compares secrets. */
    const authenticate = (keyHash: string) =>
      Effect.map(
        Effect.orDie(repo.byKeyHash(keyHash)),
        (row): Option.Option<RelayApi.RelayPrincipal> =>
          row === undefined ? Option.none() : Option.some({ relayId: row.id, userId: row.userId, keyHash })
      )

    const own = (key: RelayApi.RelayPrincipal, relayId: string) =>
      Effect.zipRight(
        canUseRelay(relayId, key),
        Effect.flatMap(Effect.orDie(repo.forUser(key.userId)), (row) =>
          row === undefined || row.id !== key.relayId ? Effect.fail(notInFeed(relayId)) : Effect.succeed(row))
      )

    /** An event of this agent's stream by id: its cursor (the id starts with it), checked against the stream. */
    const cursorOf = (userId: Auth.Principal["id"], eventId: string) =>
      Effect.gen(function*() {
        const m = eventCursor.exec(eventId)
        if (m === null) return yield* notInFeed(eventId)
        const cursor = parseInt(m[1]!, 16)
        const rows = yield* Effect.orDie(stream.after(cursor - 1, 1, userId))
        if (rows[0]?.id !== eventId) return yield* notInFeed(eventId)
        return cursor
      })

    /** Events after the position, in the relay's names; with `ack`, the position moves past them. */
    const mapped = (userId: Auth.Principal["id"], after: number, method: Api.DeliveryMode) =>
      Effect.gen(function*() {
        const page = yield* events.poll(userId, after, PAGE)
        const descriptions = yield* Effect.orDie(repo.taskDescriptions(assignedTaskIds(page.events)))
        return {
          events: page.events.map((e) => toRelayEvent(e, method, descriptions)),
          last: page.next_cursor
        }
      })

    const pending = Effect.fn("Relay.pending")(
      function*(key: RelayApi.RelayPrincipal, relayId: string, ack: boolean) {
        const row = yield* own(key, relayId)
        const page = yield* mapped(row.userId, row.position, "poll")
        if (ack && page.events.length > 0) yield* Effect.orDie(repo.advance(row.id, page.last))
        return page.events
      }
    )

    const acknowledge = Effect.fn("Relay.ack")(
      function*(key: RelayApi.RelayPrincipal, relayId: string, eventId: string) {
        const row = yield* own(key, relayId)
        const cursor = yield* cursorOf(row.userId, eventId)
        yield* Effect.orDie(repo.advance(row.id, cursor))
      }
    )

    const recordResult = Effect.fn("Relay.recordResult")(
      function*(key: RelayApi.RelayPrincipal, eventId: string, result: typeof Api.ResultRequest.Type) {
        yield* cursorOf(key.userId, eventId)
        yield* Effect.orDie(repo.recordResult(key.relayId, eventId, {
          status: result.status,
          errorReason: result.error_reason ?? null,
          executedAt: result.executed_at ?? null
        }))
      }
    )

    const config = Effect.fn("Relay.config")(function*(key: RelayApi.RelayPrincipal, relayId: string) {
      return asConfig(yield* own(key, relayId))
    })

    const configure = Effect.fn("Relay.configure")(
      function*(key: RelayApi.RelayPrincipal, relayId: string, request: Api.ConfigureRequest) {
        const row = yield* own(key, relayId)
        const url = request.webhook_url ?? null
        if (request.delivery_mode === "push") {
          if (url === null) return yield* badWebhookUrl("push delivery needs a webhook_url")
          const verdict = yield* guard.check(url)
          if (!verdict.ok) return yield* badWebhookUrl(verdict.reason)
        }
        const updated = yield* Effect.orDie(repo.configure(row.id, {
          deliveryMode: request.delivery_mode,
          webhookUrl: url,
          webhookSecret: request.webhook_secret ?? null
        }))
        return asConfig(updated)
      }
    )

    return { get, rotate, authenticate, pending, acknowledge, recordResult, config, configure, mapped } as const
  }),
  dependencies: [RelayRepo.Default, Events.Default, EventsRepo.Default, UrlGuard.Default]
}) {}
