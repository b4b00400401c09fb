import { McpServer } from "@effect/ai"
import * as Headers from "@effect/platform/Headers"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Auth } from "@shoal/domain"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { currentUser } from "../Auth/Caller.js"
import { apiErrorResponse, errorResponse } from "../Http/ErrorEnvelope.js"
import { withBody } from "../Http/RequestChecks.js"
import { answerSingle, answerToolCall, makeBatch, type ToolCall } from "./Batch.js"
import { McpCallers } from "./Callers.js"
import { parseError } from "./JsonRpc.js"
import { PromptsLive } from "./Prompts.js"
import { EventsResourceLive } from "./Resources.js"
import { McpToolsLive } from "./Tools.js"

/** Set by the route on every authenticated request (any value the client sent is replaced). */
const SESSION_HEADER = "x-shoal-mcp-session"

export const MCP_PATH = "/mcp"

/**
 * `POST /mcp`: MCP over streamable HTTP (JSON responses, no server-sent stream), authenticated, rate-limited and
 * counted as a heartbeat by the same middleware as REST; a JSON-RPC batch is bounded and each of its messages counted
 * and run in turn (src/Mcp/Batch.ts); `GET /mcp` answers 405, as the transport allows a server without a stream.
 */
export const McpHttpLive = Layer.unwrapScoped(Effect.gen(function*() {
  const callers = yield* McpCallers
  const { httpApp, protocol } = yield* RpcServer.makeProtocolWithHttpApp
  const stamped = RpcServer.Protocol.of({
    ...protocol,
    run: (f) =>
      protocol.run((clientId, message) => {
        if (message._tag === "Request") {
          const token = message.headers.find(([k]) => k === SESSION_HEADER)?.[1]
          if (token !== undefined) callers.bind(token, clientId)
        }
        return f(clientId, message)
      })
  })

  const route = HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const authenticate = yield* Auth.Authentication
      const authenticated = <E, R>(
        f: (principal: Auth.Principal) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ) =>
        Effect.zipRight(authenticate, currentUser).pipe(
          Effect.matchEffect({ onFailure: (e) => Effect.succeed(apiErrorResponse(e)), onSuccess: f })
        )
      const mcp = yield* McpServer.McpServer
      const batch = yield* makeBatch
      const decoder = new TextDecoder()
      yield* router.post(
        MCP_PATH,
        authenticated((principal) =>
          Effect.gen(function*() {
            const request = yield* HttpServerRequest.HttpServerRequest
            const text = yield* Effect.orElseSucceed(request.text, () => "")
            let parsed: unknown
            try {
              parsed = JSON.parse(text)
            } catch (e) {
              return HttpServerResponse.unsafeJson(parseError(e), { status: 400 })
            }
            // each message but a tool call alone through the RPC server (its own client, closed after it), its answer
            // checked and put under the client's id (src/Mcp/Batch.ts); the caller is known to the RPC server's
            // handlers by a token in a header, for this message alone
            const rpc = (message: string) =>
              Effect.acquireUseRelease(
                Effect.sync(() => {
                  const token = randomUUID()
                  callers.open(token, principal)
                  return token
                }),
                (token) => {
                  // a request of the platform's own class (`modify`), answering this message as its body: one shape
                  // for every copy, as the body checks keep it (bench/README.md, "One shape per object")
                  const forMessage = request.modify({ headers: Headers.set(request.headers, SESSION_HEADER, token) })
                  withBody(forMessage, message, false)
                  return Effect.scoped(Effect.provideService(httpApp, HttpServerRequest.HttpServerRequest, forMessage))
                },
                (token) => Effect.sync(() => callers.close(token))
              ).pipe(Effect.map((response) => {
                const body = response.body._tag === "Uint8Array" ? decoder.decode(response.body.body) : ""
                return body.length > 0 ? JSON.parse(body) as unknown : undefined
              }))
            const paths = { toolCall: (c: ToolCall) => answerToolCall(mcp, callers, principal, c), rpc }
            return yield* Array.isArray(parsed) ? batch(principal, parsed, paths) : answerSingle(parsed, paths)
          })
        )
      )
      const noStream = errorResponse(
        405,
        "method_not_allowed",
        "this server opens no event stream: POST JSON-RPC to /mcp",
        undefined,
        { allow: "POST" }
      )
      yield* router.get(MCP_PATH, authenticated(() => Effect.succeed(noStream)))
    })
  )

  const server = Layer.mergeAll(
    McpToolsLive,
    EventsResourceLive,
    PromptsLive,
    McpServer.layer({ name: "Shoal", version: "1.0.0" })
  ).pipe(Layer.provide(Layer.succeed(RpcServer.Protocol, stamped)))
  return Layer.mergeAll(route, server).pipe(Layer.provide(McpServer.McpServer.layer))
})).pipe(Layer.provide(RpcSerialization.layerJsonRpc()), Layer.provide(McpCallers.Default))
