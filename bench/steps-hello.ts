// The hello-world HttpApi of bench/hello-server.ts, its steps traced like bench/steps.ts.
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpMiddleware } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, RuntimeFlags, Schema, Supervisor } from "effect"
import { createServer } from "node:http"
import { report, Tracer } from "./steps.js"

class Hello extends HttpApiGroup.make("hello").add(
  HttpApiEndpoint.get("hello", "/hello").addSuccess(Schema.Struct({ status: Schema.String, message: Schema.String }))
) {}
class Api extends HttpApi.make("hello").add(Hello) {}
const HelloLive = HttpApiBuilder.group(
  Api,
  "hello",
  (h) => h.handle("hello", () => Effect.succeed({ status: "success", message: "hello" }))
)
const sup = new Tracer()
Effect.gen(function*() {
  yield* Effect.forkDaemon(Layer.launch(
    HttpApiBuilder.serve().pipe(
      Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(HelloLive))),
      (l) => HttpMiddleware.withTracerDisabledWhen(l, () => true),
      Layer.provide(NodeHttpServer.layer(createServer, { port: 18933, host: "127.0.0.1" })),
      Layer.provide(Layer.merge(Supervisor.addSupervisor(sup), RuntimeFlags.enableOpSupervision))
    )
  ))
  yield* Effect.sleep("1 second")
  yield* report(sup, "http://127.0.0.1:18933/hello", {})
  process.exit(0)
}).pipe(NodeRuntime.runMain)
