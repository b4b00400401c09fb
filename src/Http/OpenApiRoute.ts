import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { OpenApiDoc } from "@shoal/domain"
import { Effect } from "effect"

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
