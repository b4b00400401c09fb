import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, IdentityApi as Api, ShoalApi } from "@shoal/domain"
import { Effect, Layer } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { withOnly } from "../Http/LeanContext.js"
import { Identity } from "../Identity.js"

/** Browsers on any origin may read the public identity documents (NIP-05 requires it), errors included. */
const PublicCorsLive = Layer.succeed(
  Api.PublicCors,
  HttpApp.appendPreResponseHandler((_req, res) =>
    Effect.succeed(HttpServerResponse.setHeader(res, "access-control-allow-origin", "*"))
  )
)

/** The public identity documents (the `identity` group's GET routes): the paths a browser on any origin reads. */
const PUBLIC_PATHS = ["/.well-known/nostr.json", "/.well-known/shoal-keys.json", "/api/identity/:handle"] as const

// a list of header names (RFC 9110 tokens), as a browser sends in Access-Control-Request-Headers
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9a-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9a-z-]+)*$/i
const DEFAULT_ALLOWED_HEADERS =
  "Accept, Accept-Language, Content-Language, Content-Type, If-None-Match, X-Requested-With"

/**
 * OPTIONS on the public identity documents: the CORS preflight a browser sends before a cross-origin GET that
 * carries its own headers. 204 allowing any origin, GET, and the headers it asked for (a day in its cache). The
 * keyed API gets no preflight answer: it is not meant to be called from other origins' pages.
 */
export const IdentityPreflightLive = HttpApiBuilder.Router.use((router) =>
  Effect.forEach(PUBLIC_PATHS, (path) =>
    router.options(
      path,
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        const asked = request.headers["access-control-request-headers"]?.trim()
        const echo = asked !== undefined && asked.length > 0 && asked.length <= 1_000 && HEADER_LIST.test(asked)
        return HttpServerResponse.empty({
          status: 204,
          headers: {
            "access-control-allow-origin": "*",
            "access-control-allow-methods": "GET, OPTIONS",
            "access-control-allow-headers": echo ? asked : DEFAULT_ALLOWED_HEADERS,
            "access-control-max-age": "86400",
            vary: "Access-Control-Request-Headers"
          }
        })
      })
    ), { discard: true })
)

export const IdentityHttpLive = HttpApiBuilder.group(ShoalApi, "identity", (handlers) =>
  Effect.gen(function*() {
    const identity = yield* Identity
    return handlers
      .handle("proof", ({ path }) => identity.proof(path.handle))
      .handle("keys", () => Effect.succeed(identity.keys))
      .handle("nostr", ({ urlParams }) => identity.nostr(urlParams.name))
  })).pipe(Layer.provide(PublicCorsLive), withOnly(Identity))

export const DomainsHttpLive = HttpApiBuilder.group(ShoalApi, "domains", (handlers) =>
  Effect.gen(function*() {
    const identity = yield* Identity
    return handlers
      .handle("listDomains", () =>
        Effect.flatMap(currentUser, (caller) => identity.listDomains(caller.id)).pipe(
          Effect.map((domains) => new Api.DomainsResponse({ status: "success", domains }))
        ))
      .handle("setDomain", ({ path, payload }) =>
        Effect.flatMap(currentUser, (caller) =>
          identity.setDomain(caller.id, path.tld, payload)).pipe(
            Effect.map((domain) => new Api.DomainResponse({ status: "success", domain }))
          ))
  })).pipe(withOnly(Identity, Auth.Authentication))
