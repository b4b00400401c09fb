import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { OpenApiDoc } from "@shoal/domain"
import { Effect, Layer } from "effect"
import { compress, respond } from "./Compressed.js"

// a DNS name or an IP literal, with an optional port: anything else in `Host` is not echoed into the document
const HOST =
  /^((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i

/**
 * Where the request reached us: `Host` (checked, never echoed as it is) and `X-Forwarded-Proto` when a proxy in front
 * says https; undefined without a usable `Host`.
 */
export const requestOrigin = (headers: Readonly<Record<string, string | undefined>>): OpenApiDoc.Origin | undefined => {
  const match = HOST.exec(headers.host?.trim() ?? "")
  if (match === null) return undefined
  const forwarded = headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase()
  const protocol = forwarded === "https" ? "https" : "http"
  const port = match[2] ?? (protocol === "https" ? "443" : "80")
  if (Number(port) > 65535) return undefined
  return { protocol, host: match[1].toLowerCase(), port: String(Number(port)) }
}

/** Documents kept per origin: a handful in practice (each name and port the server is reached by), bounded anyway. */
const MAX_ORIGINS = 32

/**
 * `GET /openapi.json`: the API's document (`HttpApiBuilder.middlewareOpenApi`'s) with `servers` naming the server
 * as the request reached it, so a client generated from it calls this server, not 127.0.0.1:8080.
 */
export const OpenApiLive = (path: `/${string}` = "/openapi.json") =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const { api } = yield* HttpApi.Api
      const doc = OpenApi.fromApi(api)
      const plain = HttpServerResponse.unsafeJson(doc)
      const byOrigin = new Map<string, HttpServerResponse.HttpServerResponse>()
      yield* router.get(
        path,
        Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
          const origin = requestOrigin(request.headers)
          if (origin === undefined || doc.servers === undefined) return plain
          const key = `${origin.protocol}://${origin.host}:${origin.port}`
          let response = byOrigin.get(key)
          if (response === undefined) {
            if (byOrigin.size >= MAX_ORIGINS) byOrigin.clear()
            response = HttpServerResponse.unsafeJson({ ...doc, servers: OpenApiDoc.serversAt(doc.servers, origin) })
            byOrigin.set(key, response)
          }
          return response
        })
      )
    })
  )

/**
 * `GET /docs`: the Swagger UI page of the API, built once on its first request (with its gzip and brotli encodings)
 * rather than at start as `HttpApiSwagger.layer` does: the bundle with the OpenAPI document inlined is about 11 MB of
 * strings for the two APIs, in every process's heap though /docs is rarely opened. Its module is imported then too.
 */
export const DocsLive = (path: `/${string}` = "/docs") =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const { api } = yield* HttpApi.Api
      const app = yield* Effect.cached(Effect.gen(function*() {
        const [Swagger, LayerRouter] = yield* Effect.promise(() =>
          Promise.all([import("@effect/platform/HttpApiSwagger"), import("@effect/platform/HttpLayerRouter")])
        )
        const docs = yield* LayerRouter.make
        yield* Effect.scoped(
          Layer.build(Swagger.layerHttpLayerRouter({ api, path })).pipe(
            Effect.provideService(LayerRouter.HttpRouter, docs)
          )
        )
        const page = docs.asHttpEffect()
        // the page is the same for every request: encoded once, here, then each request picks its encoding
        const built = yield* page
        if (built.status !== 200 || built.body._tag !== "Uint8Array") return page
        const body = compress(built.body.body)
        const contentType = built.body.contentType
        return Effect.map(
          HttpServerRequest.HttpServerRequest,
          (request) => respond(request, body, { contentType, cacheControl: "no-cache" })
        )
      }))
      yield* router.get(path, Effect.flatten(app))
    })
  )
