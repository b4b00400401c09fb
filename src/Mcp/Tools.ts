import { McpSchema, McpServer, Tool, Toolkit } from "@effect/ai"
import { ErrorDetails } from "@shoal/domain"
import { Context, Effect, Layer, ParseResult, Schema, SchemaAST } from "effect"
import { MeTools, MeToolsLive } from "./Tools/Me.js"
import { SocialTools, SocialToolsLive } from "./Tools/Social.js"
import { WorkTools, WorkToolsLive } from "./Tools/Work.js"

/** Every tool an agent gets over MCP: the agent API's operations, each calling the service its REST handler calls. */
export const ShoalTools = Toolkit.merge(MeTools, WorkTools, SocialTools)

export const toolResult = (isError: boolean, value: unknown) =>
  // built from our own text: the class's validation of its content union (8% of a call's CPU in bench mcp) is skipped
  new McpSchema.CallToolResult({
    isError,
    structuredContent: typeof value === "object" ? value : undefined,
    content: [{ type: "text", text: JSON.stringify(value) }]
  }, true)

/**
 * `McpServer.toolkit` of @effect/ai 0.37 except for how a call is run: the same tool list (names, descriptions, input
 * schemas, annotations), the same decoding and handlers, the same answers. A call does what `Toolkit.handle` does for
 * our tools (success `Unknown`, failures as errors), without what is the identity for them: the parameters decoded
 * (a 400's envelope when they do not, as REST answers), the handler run, its value or failure as the result.
 * Skipped: the span, validating and encoding the result against `Union(Unknown, failure)` (both give the value back
 * as it is), and merging the handlers' build context into each call's (a call needs only McpServerClient, the tools'
 * one declared dependency, which it brings).
 */
export const McpToolsLive = Layer.effectDiscard(Effect.gen(function*() {
  const registry = yield* McpServer.McpServer
  const built = yield* ShoalTools
  const handlers = yield* Effect.context<never>()
  for (const tool of Object.values(built.tools) as Array<Tool.Any>) {
    const annotations = tool.annotations
    const handler = (handlers.unsafeMap.get(tool.id) as Tool.Handler<string>).handler
    const decode = Schema.decodeUnknown(tool.parametersSchema as Schema.Schema<unknown, unknown>)
    yield* registry.addTool({
      tool: new McpSchema.Tool({
        name: tool.name,
        description: tool.description,
        // as McpServer.toolkit has it: an object schema, even for a tool without parameters
        inputSchema: SchemaAST.getPropertySignatures(tool.parametersSchema.ast).length === 0
          ? { type: "object", properties: {}, required: [], additionalProperties: false }
          : Tool.getJsonSchemaFromSchemaAst(tool.parametersSchema.ast),
        annotations: new McpSchema.ToolAnnotations({
          readOnlyHint: Context.get(annotations, Tool.Readonly),
          destructiveHint: Context.get(annotations, Tool.Destructive),
          idempotentHint: Context.get(annotations, Tool.Idempotent),
          openWorldHint: Context.get(annotations, Tool.OpenWorld)
        })
      }),
      handle: (payload) =>
        decode(payload).pipe(
          // bad arguments read as REST's 400: the same formatter, the same envelope (not @effect/ai's long AiError)
          Effect.mapError((cause) => ({
            status: "error" as const,
            error: {
              code: "invalid_request",
              ...ErrorDetails.formatDecodeIssues(ParseResult.ArrayFormatter.formatErrorSync(cause))
            }
          })),
          Effect.flatMap((params) => handler(params)),
          Effect.match({
            onFailure: (error) => toolResult(true, error),
            onSuccess: (value) => toolResult(false, value)
          })
        ) as Effect.Effect<McpSchema.CallToolResult, never, McpSchema.McpServerClient>
    })
  }
})).pipe(
  Layer.provide(McpServer.McpServer.layer),
  Layer.provide(Layer.mergeAll(MeToolsLive, WorkToolsLive, SocialToolsLive))
)
