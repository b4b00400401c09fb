// The hello-world HttpApi of bench/hello-server.ts, its steps traced like bench/steps.ts.
import { HttpApiBuilder, HttpMiddleware } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, RuntimeFlags, Supervisor } from "effect"
import { createServer } from "node:http"
import { HelloApiLive } from "./hello-api.js"
import { report, Tracer } from "./steps.js"

const sup = new Tracer()
Effect.gen(function*() {
  yield* Effect.forkDaemon(Layer.launch(
    HttpApiBuilder.serve().pipe(
      Layer.provide(HelloApiLive),
      (l) => HttpMiddleware.withTracerDisabledWhen(l, () => true),
      Layer.provide(NodeHttpServer.layer(createServer, { port: 18933, host: "127.0.0.1" })),
      Layer.provide(Layer.merge(Supervisor.addSupervisor(sup), RuntimeFlags.enableOpSupervision))
    )
  ))
  yield* Effect.sleep("1 second")
  yield* report(sup, "http://127.0.0.1:18933/hello", {})
  process.exit(0)
}).pipe(NodeRuntime.runMain)
