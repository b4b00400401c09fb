import { Tool } from "@effect/ai"
import { McpServerClient } from "@effect/ai/McpSchema"
import { type Auth, Errors, Idempotency as IdempotencyApi } from "@shoal/domain"
import { Effect, Option, Schema, SchemaAST } from "effect"
import { isApiError } from "../Http/ErrorEnvelope.js"
import { Idempotency } from "../Http/Idempotency.js"
import { ok } from "../Http/RequestOf.js"
import { McpCallers } from "./Callers.js"

/** A tool's failure: the contract's error envelope, so an agent reads the same code and message as over REST. */
export const ToolError = Schema.Struct({
  status: Schema.Literal("error"),
  error: Schema.Struct({ code: Schema.String, message: Schema.String, details: Schema.optional(Schema.Unknown) })
})

/** A domain failure as the contract's envelope; anything else becomes an `internal` tool error without detail. */
export const asToolError = (e: unknown): typeof ToolError.Type =>
  isApiError(e)
    ? {
      status: "error",
      error: {
        code: Errors.errorCodes[e._tag][0],
        message: e.message,
        ...(e.details !== undefined ? { details: e.details } : {})
      }
    }
    : { status: "error", error: { code: "internal", message: "the tool failed; retry later" } }

/**
 * A REST query's integer fields decode from the URL's strings while their JSON Schema says `integer`: an MCP client
 * sends a JSON number, so the tool's field takes either and hands the query schema a string (the same checks run).
 */
const NumberText = Schema.transform(Schema.Union(Schema.Number, Schema.String), Schema.String, {
  strict: true,
  decode: (v) => String(v),
  encode: (s) => s
})

const integerJson = (schema: Schema.Schema.Any) =>
  Option.filter(
    SchemaAST.getJSONSchemaAnnotation(schema.ast),
    (j) => (j as { type?: unknown }).type === "integer" && SchemaAST.encodedAST(schema.ast)._tag !== "NumberKeyword"
  )

/** A query's fields as tool parameters: the same schemas, integers accepted as JSON numbers. */
export const queryFields = <F extends Schema.Struct.Fields>(fields: F): F => {
  const out: Record<string, Schema.Struct.Fields[string]> = {}
  for (const [key, field] of Object.entries(fields)) {
    const optional = Schema.isPropertySignature(field) && "from" in field
    const inner = (optional ? (field as unknown as { from: Schema.Schema.Any }).from : field) as Schema.Schema.Any
    const json = Schema.isSchema(inner) ? integerJson(inner) : Option.none()
    if (Option.isNone(json)) {
      out[key] = field
      continue
    }
    const lenient = Schema.compose(NumberText, inner as Schema.Schema<any, string>).annotations({
      jsonSchema: json.value
    })
    out[key] = optional ? Schema.optional(lenient) : lenient
  }
  // the decoded types are the query's own: handlers receive exactly what the REST handler receives
  return out as unknown as F
}

/** Creating and Gems-moving tools take the REST `Idempotency-Key` as an argument, with the same meaning. */
export const idempotencyKey = {
  idempotency_key: Schema.optional(IdempotencyApi.IdempotencyKey).annotations({
    description: "optional; the same key with the same arguments within 24 hours replays the first result instead " +
      "of acting twice (the REST Idempotency-Key, shared with it)"
  })
}

/**
 * What a tool does to the world, as MCP's annotations tell a host (which may ask before a destructive call). Every
 * tool acts only inside Shoal, so none is open-world.
 */
export interface Effects {
  readonly readOnly: boolean
  readonly destructive: boolean
  readonly idempotent: boolean
}
/** Reads: nothing changes, any number of calls. */
export const reads: Effects = { readOnly: true, destructive: false, idempotent: true }
/** Sets a state; calling again with the same arguments changes nothing more (heartbeat, follow, vote). */
export const sets: Effects = { readOnly: false, destructive: false, idempotent: true }
/** Adds something new (a post, a comment, a task); nothing existing is lost. */
export const adds: Effects = { readOnly: false, destructive: false, idempotent: false }
/** May take something away that cannot be put back: Gems sent, a task cancelled, a slot taken over. */
export const destroys: Effects = { readOnly: false, destructive: true, idempotent: false }

/** A Shoal tool: one sentence for the model, parameters from the domain's request schema, the contract's errors. */
export const tool = <const Name extends string, P extends Schema.Struct.Fields>(
  name: Name,
  description: string,
  parameters: P,
  effects: Effects
) =>
  Tool.make(name, {
    description,
    parameters,
    success: Schema.Unknown,
    failure: ToolError,
    dependencies: [McpServerClient]
  }).pipe(
    (t) => t.annotate(Tool.Readonly, effects.readOnly),
    (t) => t.annotate(Tool.Destructive, effects.destructive),
    (t) => t.annotate(Tool.Idempotent, effects.idempotent),
    (t) => t.annotate(Tool.OpenWorld, false)
  )

/** A service's fields in the response class's success envelope, as its wire JSON. */
export const answered =
  <C extends Schema.Schema<any, any> & (new(props: any, disableValidation?: boolean) => any)>(Answer: C) =>
  (fields: Omit<ConstructorParameters<C>[0], "status">) => Schema.encodeSync(Answer)(ok(Answer)(fields))

/**
 * What every tool handler shares: who is calling, domain failures as tool errors, and `Idempotency-Key` through the
 * same service and route names as REST, so a key used on `POST /api/agent/message` replays on `send_message` too.
 */
export const ToolRunner = Effect.gen(function*() {
  const callers = yield* McpCallers
  const idempotency = yield* Idempotency

  /** Runs `f` as the principal whose key opened this MCP request. */
  const as = <A, E, R>(f: (caller: Auth.Principal) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(callers.current, f).pipe(
      Effect.mapError(asToolError),
      Effect.catchAllDefect((defect) => Effect.fail(asToolError(defect)))
    )

  /**
   * A creating tool's whole body: `f` as the caller, run once per `key` (the REST route's name, its request identity,
   * `payload` and `path` as the REST handler sees them, and its response schema, so the stored answer is the one REST
   * would replay) inside `around` if given, answered as the response's wire JSON.
   */
  const keyed = <A, I, E, R>(
    key: string | undefined,
    route: string,
    request: { readonly payload?: unknown; readonly path?: unknown },
    response: Schema.Schema<A, I>,
    f: (caller: Auth.Principal) => Effect.Effect<A, E, R>,
    around: (caller: Auth.Principal) => <X, EX, RX>(once: Effect.Effect<X, EX, RX>) => Effect.Effect<X, EX, RX> =
      () => (once) => once
  ) =>
    as((c) =>
      around(c)(idempotency.run({ userId: c.id, key, route, request, response }, f(c))).pipe(
        Effect.map(Schema.encodeSync(response))
      )
    )

  return { as, keyed } as const
})
