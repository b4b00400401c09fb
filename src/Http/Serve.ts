import { NodeHttpServer } from "@effect/platform-node"
import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Path from "@effect/platform/Path"
import { Config, Context, Data, Effect, Layer, Option, Scope } from "effect"
import { ConnectionGate } from "../Edge/ConnectionGate.js"
import { millis } from "../Edge/Switch.js"
import { withWriteAdmission, WriteAdmission } from "../Edge/WriteAdmission.js"
import { httpTracing } from "../Metrics/Tracing.js"
import { ApiMiddlewareLive } from "./ApiMiddleware.js"
import { createHoldingServer, serverDefaults } from "./HoldingServer.js"
import { DocsLive, OpenApiLive } from "./OpenApiRoute.js"

const serverServices = [
  HttpServer.HttpServer,
  HttpPlatform.HttpPlatform,
  Etag.Generator,
  FileSystem.FileSystem,
  Path.Path,
  Scope.Scope
] as const
type ServerService = (typeof serverServices)[number]

/**
 * `HttpApiBuilder.serve()`, except that each request starts from a small context: only the server's own services.
 * Effect copies a request's context each time it adds to it (several times per request): forked from the context
 * the server was started in, with every feature's services, the copies showed in profiles. Handlers take their
 * services when their layer is built (a group merges its own context back in), so nothing they use is lost.
 */
const serveLean = () =>
  Layer.scopedDiscard(Effect.gen(function*() {
    // writes wait their turn, or are shed, before the router (src/Edge/WriteAdmission.ts); the heartbeat is exempt
    const admission = Option.flatMapNullable(yield* Effect.serviceOption(WriteAdmission), (a) => a.queue)
    const app = withWriteAdmission(Option.getOrUndefined(admission), yield* HttpApiBuilder.httpApp)
    const server = yield* HttpServer.HttpServer
    const lean = Context.pick(...serverServices)(yield* Effect.context<Context.Tag.Identifier<ServerService>>())
    yield* Effect.mapInputContext(server.serve(app), (_: Context.Context<never>) => lean)
  })).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))

/**
 * One HttpApi as an app over whatever HttpServer is provided: its groups, extra routes (`Router.use` layers such as
 * the event socket), `/openapi.json`, `/docs` and the error envelope. Fresh, because HttpApiBuilder keeps its
 * router in a shared tag: two APIs in one process each need their own router, or both would answer on both ports.
 * The services the groups call come from outside, so both APIs share one of each.
 */
export const apiApp = <
  Id extends string,
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  E,
  R,
  GE,
  GR,
  XE,
  XR,
  XO = never
>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  groups: Layer.Layer<HttpApiGroup.HttpApiGroup.ToService<Id, Groups>, GE, GR>,
  routes: Layer.Layer<XO, XE, XR>
) =>
  serveLean().pipe(
    Layer.provide(DocsLive("/docs")),
    Layer.provide(OpenApiLive("/openapi.json")),
    Layer.provide(ApiMiddlewareLive),
    Layer.provide(routes),
    Layer.provide(HttpApiBuilder.api(api).pipe(Layer.provide(groups))),
    // a span per request costs ~30% of throughput: HTTP_TRACING, or on when traces are exported (src/Metrics/Tracing.ts)
    (layer) =>
      Layer.unwrapEffect(Effect.map(
        httpTracing,
        (tracing) => tracing ? layer : HttpMiddleware.withTracerDisabledWhen(layer, () => true)
      )),
    Layer.fresh,
    // a fresh layer is built once per reference, and combinators such as provideMerge reference theirs twice:
    // wrapped, the wrapper is memoized as usual and the fresh router inside is built once
    (fresh) => Layer.suspend(() => fresh)
  )

export class ListenError
  extends Data.TaggedError("ListenError")<{ readonly message: string; readonly cause: unknown }>
{
}

// connections the kernel holds for the server to accept (capped by net.core.somaxconn); past them a client's SYN is
// dropped and retried 1, 3, 7 s later: a burst landing while the loop is busy waits seconds (bench/README.md, overload)
const defaultListenBacklog = 4096

const reason = (cause: unknown): string => {
  const inner = (cause as { cause?: { code?: string; message?: string } } | undefined)?.cause
  if (inner?.code === "EADDRINUSE") return "EADDRINUSE: the address is already in use by another process"
  if (inner?.code === "EACCES") return "EACCES: permission denied (ports below 1024 need privileges)"
  return inner?.code ?? inner?.message ?? String(cause)
}

/**
 * A Node HTTP server on `HOST`:`<portVariable>`; failing to listen names the address, the variable and why. A client
 * has `HTTP_HEADERS_TIMEOUT` (default 10 s) to send its request head and `HTTP_REQUEST_TIMEOUT` (30 s) for the whole
 * request, then gets a JSON 408 and is closed; a request not answered within `HTTP_HANDLER_TIMEOUT` (30 s) gets a
 * JSON 503. At most `HTTP_MAX_CONNECTIONS` connections are open (10 000; 0: no cap), an idle keep-alive connection is
 * closed after `HTTP_KEEP_ALIVE_TIMEOUT` (5 s), and the kernel holds up to `HTTP_LISTEN_BACKLOG` (4096) not yet
 * accepted. With the process's edge, connections pass its gate first (src/Edge/ConnectionGate.ts).
 */
export const listen = (name: string, portVariable: string, defaultPort: number) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const host = yield* Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
    const port = yield* Config.port(portVariable).pipe(Config.withDefault(defaultPort))
    const options = {
      headersTimeoutMs: yield* millis("HTTP_HEADERS_TIMEOUT", serverDefaults.headersTimeoutMs),
      requestTimeoutMs: yield* millis("HTTP_REQUEST_TIMEOUT", serverDefaults.requestTimeoutMs),
      handlerTimeoutMs: yield* millis("HTTP_HANDLER_TIMEOUT", serverDefaults.handlerTimeoutMs),
      maxConnections: yield* Config.integer("HTTP_MAX_CONNECTIONS").pipe(
        Config.withDefault(serverDefaults.maxConnections)
      ),
      keepAliveTimeoutMs: yield* millis("HTTP_KEEP_ALIVE_TIMEOUT", serverDefaults.keepAliveTimeoutMs)
    }
    const backlog = yield* Config.integer("HTTP_LISTEN_BACKLOG").pipe(Config.withDefault(defaultListenBacklog))
    const edge = Option.getOrUndefined(yield* Effect.serviceOption(ConnectionGate))
    // NodeHttpServer.layer, with the edge's gate put in front of the server it listens on
    const server = Layer.scoped(
      HttpServer.HttpServer,
      Effect.gen(function*() {
        const node = createHoldingServer(options, edge?.strike)
        const gate = edge?.install(node, backlog)
        const server = yield* NodeHttpServer.make(() => node, { host, port, backlog })
        // added after the server's own close, so it runs before it (src/Edge/ConnectionGate.ts)
        if (gate !== undefined) yield* Effect.addFinalizer(() => gate.close)
        return server
      })
    )
    return Layer.merge(server, NodeHttpServer.layerContext).pipe(
      Layer.mapError((cause) =>
        new ListenError({
          message: `the ${name} cannot listen on ${host}:${port} (${portVariable}): ${reason(cause)}`,
          cause
        })
      )
    )
  }))

/** An app layer served by a real server, logging its address. */
export const serveOn = <E, R>(app: Layer.Layer<never, E, R>, server: ReturnType<typeof listen>) =>
  app.pipe(HttpServer.withLogAddress, Layer.provide(server))
