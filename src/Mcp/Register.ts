import { McpSchema, McpServer, Tool, type Toolkit } from "@effect/ai"
import { ErrorDetails } from "@shoal/domain"
import { Context, Effect, JSONSchema, Layer, Option, ParseResult, Schema, SchemaAST } from "effect"

const inputSchema = (ast: SchemaAST.AST) => {
  if (SchemaAST.getPropertySignatures(ast).length === 0) {
    return { type: "object", properties: {}, required: [], additionalProperties: false }
  }
  const $defs: Record<string, JSONSchema.JsonSchema7> = {}
  const schema = JSONSchema.fromAST(ast, { definitions: $defs, topLevelReferenceStrategy: "skip" })
  return Object.keys($defs).length === 0 ? schema : { ...schema, $defs }
}

export const toolResult = (isError: boolean, value: unknown) =>
  // built from our own text: the class's validation of its content union (8% of a call's CPU in bench mcp) is skipped
  new McpSchema.CallToolResult({
    isError,
    structuredContent: typeof value === "object" ? value : undefined,
    content: [{ type: "text", text: JSON.stringify(value) }]
  }, true)

/**
 * A call of `tool`: what `Toolkit.handle` of @effect/ai 0.37 does for a tool whose success schema is `Unknown` and
 * whose failures are errors (all of ours), without what is the identity for such a tool: the parameters decoded
 * (a 400's envelope when they do not, as REST answers), the handler run, its value or failure as the result. Skipped: the
 * span (`Toolkit.handle`), validating and encoding the result against `Union(Unknown, failure)` (both give the value
 * back as it is), and merging the handler's build context into each call's (the handlers took their services when
 * built; a call needs McpServerClient, the tools' one declared dependency, which the call brings). Any other tool
 * goes through the toolkit's own `handle`.
 */
const handleOf = <Tools extends Record<string, Tool.Any>>(
  tool: Tool.Any,
  handlers: Context.Context<never>,
  built: Toolkit.WithHandler<Tools>
): (payload: unknown) => Effect.Effect<McpSchema.CallToolResult, never, McpSchema.McpServerClient> => {
  const handler = (handlers.unsafeMap.get(tool.id) as Tool.Handler<string> | undefined)?.handler
  if (handler === undefined || tool.failureMode !== "error" || !SchemaAST.isUnknownKeyword(tool.successSchema.ast)) {
    return (payload) =>
      built.handle(tool.name as any, payload as any).pipe(
        Effect.match({
          onFailure: (error) => toolResult(true, error),
          onSuccess: (r) => toolResult(false, r.encodedResult)
        })
      ) as Effect.Effect<McpSchema.CallToolResult, never, McpSchema.McpServerClient>
  }
  const decode = Schema.decodeUnknown(tool.parametersSchema as Schema.Schema<unknown, unknown>)
  return (payload) =>
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
}

/**
 * `McpServer.toolkit` of @effect/ai 0.37, except for how a call is run (see `handleOf`) and its result built (see
 * `result`): the same tool list (names, descriptions, input schemas, annotations), the same decoding and handlers,
 * the same answers.
 */
export const registeredToolkit = <Tools extends Record<string, Tool.Any>>(toolkit: Toolkit.Toolkit<Tools>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const registry = yield* McpServer.McpServer
    const built = yield* toolkit
    const handlers = yield* Effect.context<never>()
    for (const tool of Object.values(built.tools) as Array<Tool.Any>) {
      const annotations = tool.annotations
      yield* registry.addTool({
        tool: new McpSchema.Tool({
          name: tool.name,
          description: tool.description,
          inputSchema: inputSchema(tool.parametersSchema.ast),
          annotations: new McpSchema.ToolAnnotations({
            ...Context.getOption(annotations, Tool.Title).pipe(
              Option.map((title) => ({ title })),
              Option.getOrUndefined
            ),
            readOnlyHint: Context.get(annotations, Tool.Readonly),
            destructiveHint: Context.get(annotations, Tool.Destructive),
            idempotentHint: Context.get(annotations, Tool.Idempotent),
            openWorldHint: Context.get(annotations, Tool.OpenWorld)
          })
        }),
        handle: handleOf(tool, handlers, built)
      })
    }
  })).pipe(Layer.provide(McpServer.McpServer.layer))
