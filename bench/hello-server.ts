// Baseline for `npm run bench -- auth`: an Effect HttpApi hello-world on the same stack and settings.
import { HttpApiBuilder, HttpMiddleware } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { createServer } from "node:http"
import { HelloApiLive } from "./hello-api.js"

const port = Number(process.argv[2] ?? 0)
HttpApiBuilder.serve().pipe(
  Layer.provide(HelloApiLive),
  (l) => HttpMiddleware.withTracerDisabledWhen(l, () => true),
  Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
