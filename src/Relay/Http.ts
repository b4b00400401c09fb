import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Auth, Relay as Api, RelayApi, ShoalApi } from "@shoal/domain"
import { Effect, Layer, Option } from "effect"
import { presentedKey, unauthorized } from "../Auth.js"
import { currentUser } from "../Auth/Caller.js"
import { hashKey } from "../Auth/Keys.js"
import { enforce, RateLimiter } from "../Auth/RateLimiter.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok } from "../Http/RequestOf.js"
import { Relay } from "../Relay.js"

export const RelayHttpLive = HttpApiBuilder.group(ShoalApi, "relay", (handlers) =>
  Effect.gen(function*() {
    const relay = yield* Relay
    return handlers
      .handle(
        "relayCredentials",
        () => Effect.flatMap(currentUser, relay.get).pipe(Effect.map(ok(Api.RelayCredentials)))
      )
      .handle(
        "rotateRelayCredentials",
        () => Effect.flatMap(currentUser, relay.rotate).pipe(Effect.map(ok(Api.RelayCredentials)))
      )
  })).pipe(withOnly(Relay, Auth.Authentication))

const done = new Api.RelayStatus({ status: "success" })

export const RelayFeedHttpLive = HttpApiBuilder.group(ShoalApi, "relayFeed", (handlers) =>
  Effect.gen(function*() {
    const relay = yield* Relay
    const key = RelayApi.CurrentRelay
    return handlers
      .handle("pending", ({ path, urlParams }) =>
        Effect.flatMap(key, (k) =>
          Effect.map(relay.pending(k, path.relay_id, urlParams.ack === "true"), (events) =>
            ok(Api.PendingEvents)({ events }))))
      .handle("ack", ({ path, payload }) =>
        Effect.flatMap(key, (k) =>
          relay.acknowledge(k, path.relay_id, payload.event_id)).pipe(Effect.as(done)))
      .handle("result", ({ path, payload }) =>
        Effect.flatMap(key, (k) =>
          relay.recordResult(k, path.event_id, payload)).pipe(Effect.as(done)))
      .handle("config", ({ path }) =>
        Effect.flatMap(key, (k) =>
          relay.config(k, path.relay_id)).pipe(Effect.map(ok(Api.RelayConfig))))
      .handle("configure", ({ path, payload }) =>
        Effect.flatMap(key, (k) =>
          relay.configure(k, path.relay_id, payload)).pipe(Effect.map(ok(Api.RelayConfig))))
  })).pipe(withOnly(Relay, RelayApi.RelayAuthentication))

/** The relay key check: its relay found by the key's hash, with a rate-limit bucket of its own. */
export const RelayAuthenticationLive = Layer.effect(
  RelayApi.RelayAuthentication,
  Effect.gen(function*() {
    const relay = yield* Relay
    const limiter = yield* RateLimiter
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = presentedKey(request.headers)
      if (key === undefined) return yield* unauthorized("a relay key is required: Authorization: Bearer <rk_…>")
      const found = yield* relay.authenticate(hashKey(key))
      if (Option.isNone(found)) return yield* unauthorized("the relay key is unknown or was replaced")
      // the agent's own bucket: limits are per account, whichever credential calls (CONTRACT "Who may do what")
      yield* enforce(yield* limiter.take(found.value.userId, 1), "requests per minute")
      return found.value
    })
  })
)
