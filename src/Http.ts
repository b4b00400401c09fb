import { HttpApiBuilder, HttpApiSwagger, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ShoalApi } from "@shoal/domain"
import { Config, Effect, Layer } from "effect"
import { AccountsHttpLive, SignUpHttpLive } from "./Accounts/Http.js"
import { AuthenticationLive } from "./Auth.js"
import { MaintenanceLive } from "./Database/Maintenance.js"
import { HealthHttpLive } from "./Health.js"
import { ErrorHandlingLive } from "./Http/ErrorHandling.js"
import { createHoldingServer } from "./Http/HoldingServer.js"
import { DomainsHttpLive, IdentityHttpLive, IdentityPreflightLive } from "./Identity/Http.js"
import { ProfilesHttpLive } from "./Profiles/Http.js"
import { RealtimeLive } from "./Realtime.js"
import { EventsHttpLive } from "./Realtime/Http.js"

/** Every group of the agent API with its handlers; needs a SqlClient. */
export const ApiLive = HttpApiBuilder.api(ShoalApi).pipe(
  Layer.provide([
    HealthHttpLive,
    SignUpHttpLive,
    AccountsHttpLive.pipe(Layer.provide(AuthenticationLive)),
    ProfilesHttpLive.pipe(Layer.provide(AuthenticationLive)),
    EventsHttpLive.pipe(Layer.provide(AuthenticationLive)),
    IdentityHttpLive,
    DomainsHttpLive.pipe(Layer.provide(AuthenticationLive))
  ])
)

/** Routes, docs and middleware, over whatever HttpServer is provided (real or test). */
export const HttpAppLive = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
  Layer.provide(ErrorHandlingLive),
  Layer.provide(ApiLive),
  Layer.provide(IdentityPreflightLive),
  // the event socket route and the dispatcher / webhook / retention fibers
  Layer.provide(RealtimeLive),
  // VACUUM/ANALYZE when embedded (PGlite has no autovacuum)
  Layer.provide(MaintenanceLive),
  // a span per request costs ~30% of throughput; tracing is opt-in (HTTP_TRACING=true)
  (layer) =>
    Layer.unwrapEffect(Effect.map(
      Config.boolean("HTTP_TRACING").pipe(Config.withDefault(false)),
      (tracing) => tracing ? layer : HttpMiddleware.withTracerDisabledWhen(layer, () => true)
    ))
)

/** The agent API on HOST:PORT (defaults 127.0.0.1:8080). */
export const HttpServerLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const host = yield* Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
    const port = yield* Config.port("PORT").pipe(Config.withDefault(8080))
    return HttpAppLive.pipe(
      HttpServer.withLogAddress,
      Layer.provide(NodeHttpServer.layer(createHoldingServer, { host, port }))
    )
  })
)
