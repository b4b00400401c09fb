import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import * as HttpServer from "@effect/platform/HttpServer"
import { Layer } from "effect"
import { createServer } from "node:http"

/** `NodeHttpServer.layerTest`: a server on a random local port and an HttpClient pointed at it. */
export const TestServer = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0 }))
)
