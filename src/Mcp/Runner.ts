import type { Auth } from "@shoal/domain"
import { Effect, Schema } from "effect"
import { Idempotency } from "../Http/Idempotency.js"
import { McpCallers } from "./Callers.js"
import { asToolError } from "./Tool.js"

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
   * `effect` once per `key`: the REST route's name, its request identity (`payload` and `path` as the REST handler
   * sees them) and its response schema, so the stored answer is the one REST would replay.
   */
  const once = <A, I, E, R>(
    caller: Auth.Principal,
    key: string | undefined,
    route: string,
    request: { readonly payload?: unknown; readonly path?: unknown },
    response: Schema.Schema<A, I>,
    effect: Effect.Effect<A, E, R>
  ) => idempotency.run({ userId: caller.id, key, route, request, response }, effect)

  /** A creating tool's whole body: `f` as the caller, `once` per `key`, answered as the response's wire JSON. */
  const keyed = <A, I, E, R>(
    key: string | undefined,
    route: string,
    request: { readonly payload?: unknown; readonly path?: unknown },
    response: Schema.Schema<A, I>,
    f: (caller: Auth.Principal) => Effect.Effect<A, E, R>
  ) => as((c) => once(c, key, route, request, response, f(c)).pipe(Effect.map(Schema.encodeSync(response))))

  return { as, keyed, once } as const
})
