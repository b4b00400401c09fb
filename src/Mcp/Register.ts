import { McpSchema, McpServer, Tool, type Toolkit } from "@effect/ai"
import { Context, Effect, JSONSchema, Layer, Option, SchemaAST } from "effect"

const inputSchema = (ast: SchemaAST.AST) => {
  if (SchemaAST.getPropertySignatures(ast).length === 0) {
    return { type: "object", properties: {}, required: [], additionalProperties: false }
  }
  const $defs: Record<string, JSONSchema.JsonSchema7> = {}
  const schema = JSONSchema.fromAST(ast, { definitions: $defs, topLevelReferenceStrategy: "skip" })
  return Object.keys($defs).length === 0 ? schema : { ...schema, $defs }
}

const result = (isError: boolean, value: unknown) =>
  // built from our own text: the class's validation of its content union (8% of a call's CPU in bench mcp) is skipped
  new McpSchema.CallToolResult({
    isError,
    structuredContent: typeof value === "object" ? value : undefined,
    content: [{ type: "text", text: JSON.stringify(value) }]
  }, true)

/**
 * `McpServer.toolkit` of @effect/ai 0.37, except for how a call's result is built (see `result`): the same tool
 * list (names, descriptions, input schemas, annotations), the same decoding and handlers, the same answers.
 */
export const registeredToolkit = <Tools extends Record<string, Tool.Any>>(toolkit: Toolkit.Toolkit<Tools>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const registry = yield* McpServer.McpServer
    const built = yield* toolkit
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
        handle: (payload) =>
          // no per-call provide of the registration's context (the library merges it into every call): the handlers
          // took their services when built, and the call brings McpServerClient, the tools' only requirement
          built.handle(tool.name as any, payload as any).pipe(
            Effect.match({
              onFailure: (error) => result(true, error),
              onSuccess: (r) => result(false, r.encodedResult)
            })
          )
      })
    }
  })).pipe(Layer.provide(McpServer.McpServer.layer))
