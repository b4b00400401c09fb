// Baseline for `npm run bench -- auth`: an Effect HttpApi hello-world on the same stack and settings.
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpMiddleware } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

class Hello extends HttpApiGroup.make("hello").add(
  HttpApiEndpoint.get("hello", "/hello").addSuccess(Schema.Struct({ status: Schema.String, message: Schema.String }))
) {}
class Api extends HttpApi.make("hello").add(Hello) {}

const HelloLive = HttpApiBuilder.group(
  Api,
  "hello",
  (h) => h.handle("hello", () => Effect.succeed({ status: "success", message: "hello" }))
)

const port = Number(process.argv[2] ?? 0)
HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(HelloLive))),
  (l) => HttpMiddleware.withTracerDisabledWhen(l, () => true),
  Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
