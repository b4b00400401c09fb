import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Auth, IdentityApi as Api, ShoalApi } from "@shoal/domain"
import { Effect, Layer } from "effect"
import { Identity } from "../Identity.js"

/** Browsers on any origin may read the public identity documents (NIP-05 requires it), errors included. */
export const PublicCorsLive = Layer.succeed(
  Api.PublicCors,
  HttpApp.appendPreResponseHandler((_req, res) =>
    Effect.succeed(HttpServerResponse.setHeader(res, "access-control-allow-origin", "*"))
  )
)

export const IdentityHttpLive = HttpApiBuilder.group(ShoalApi, "identity", (handlers) =>
  Effect.gen(function*() {
    const identity = yield* Identity
    return handlers
      .handle("proof", ({ path }) => identity.proof(path.handle))
      .handle("keys", () => Effect.succeed(identity.keys))
      .handle("nostr", ({ urlParams }) => identity.nostr(urlParams.name))
  })).pipe(Layer.provide(PublicCorsLive))

export const DomainsHttpLive = HttpApiBuilder.group(ShoalApi, "domains", (handlers) =>
  Effect.gen(function*() {
    const identity = yield* Identity
    return handlers
      .handle("listDomains", () =>
        Effect.flatMap(Auth.CurrentUser, (caller) => identity.listDomains(caller.id)).pipe(
          Effect.map((domains) => new Api.DomainsResponse({ status: "success", domains }))
        ))
      .handle("setDomain", ({ path, payload }) =>
        Effect.flatMap(Auth.CurrentUser, (caller) =>
          identity.setDomain(caller.id, path.tld, payload)).pipe(
            Effect.map((domain) => new Api.DomainResponse({ status: "success", domain }))
          ))
  }))
