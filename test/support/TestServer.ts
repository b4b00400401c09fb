import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import * as HttpServer from "@effect/platform/HttpServer"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import * as FrontDoor from "../../src/Http/FrontDoor.js"

/**
 * `NodeHttpServer.layerTest` (a server on a random local port and an HttpClient pointed at it), with a front door
 * (src/Http/FrontDoor.ts) as `npm start`'s servers have: the app's front-door lanes answer here as they do there.
 */
export const TestServer = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
  Layer.provideMerge(Layer.unwrapEffect(Effect.sync(() => {
    const door = FrontDoor.make()
    return NodeHttpServer.layer(() => FrontDoor.install(createServer(), door), { port: 0 }).pipe(
      Layer.merge(Layer.succeed(FrontDoor.FrontDoor, door))
    )
  })))
)
