import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Layer } from "effect"
import { compress, respond } from "./Compressed.js"

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
