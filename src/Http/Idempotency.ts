import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Clock, Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { currentUser } from "../Auth/Caller.js"
import { canonicalJson } from "./CanonicalJson.js"
import { IdempotencyRepo } from "./IdempotencyRepo.js"

/** How long a response is kept and replayed. */
export const RETENTION_MS = 24 * 60 * 60_000

/**
 * `Idempotency-Key` with Stripe semantics, scoped to the caller: the first response is stored in the transaction of
 * the write it reports and replayed (with `Idempotent-Replayed: true`) for 24 hours. Same key with another body, or
 * while the first is still running → 409; a failed request stores nothing. "Running" is a transaction-scoped advisory
 * lock on the key, taken before the write: a request whose process died (kill -9, a lost node) released it with its
 * connection, so its retry runs at once. `redact` says what of the answer is kept and replayed: a secret shown once
 * (an API key) must not sit in the table for a day (CONTRACT: only a key's hash is stored).
 */
export class Idempotency extends Effect.Service<Idempotency>()("Http/Idempotency", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* IdempotencyRepo

    const replayed = HttpApp.appendPreResponseHandler((_req, res) =>
      Effect.succeed(HttpServerResponse.setHeader(res, "idempotent-replayed", "true"))
    )

    const inFlight = Effect.fail(
      new Errors.Conflict({ message: "a request with this Idempotency-Key is still being processed; retry shortly" })
    )

    const run = <A, I, E, R>(
      options: {
        readonly userId: Ids.UserId
        readonly key: string | undefined
        readonly route: string
        readonly request: unknown
        readonly response: Schema.Schema<A, I>
        readonly redact?: ((a: A) => A) | undefined
      },
      effect: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | Errors.Conflict, R> => {
      const { key, redact, response, route, userId } = options
      if (key === undefined) return effect
      const hash = createHash("sha256").update(route).update("\n").update(canonicalJson(options.request)).digest("hex")
      const execute = Effect.gen(function*() {
        if (!(yield* repo.lock(userId, key))) return yield* inFlight
        // read after the lock: a request that held it has committed (or rolled back) by now
        const existing = yield* repo.find(userId, key)
        if (Option.isSome(existing) && existing.value.state === "done") {
          const row = existing.value
          if (row.request_hash !== hash || row.route !== route) {
            return yield* new Errors.Conflict({
              message: "this Idempotency-Key was already used with a different request",
              details: { idempotency_key: key }
            })
          }
          yield* replayed
          return yield* Effect.orDie(Schema.decodeUnknown(response)(row.response))
        }
        const a = yield* effect
        const body = yield* Effect.orDie(Schema.encode(response)(redact === undefined ? a : redact(a)))
        yield* repo.store(userId, key, route, hash, body, yield* Clock.currentTimeMillis)
        return a
      })
      return execute.pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    }

    return { run } as const
  }),
  dependencies: [IdempotencyRepo.Default]
}) {}

/**
 * An endpoint opts into `Idempotency-Key` in one line: `.handle("create", idempotent("create", Api.Created, handler))`.
 * The key comes from the endpoint's `idempotency-key` header (declare `IdempotencyHeaders`), the caller from the
 * authentication middleware, the request identity from the payload and path; `options.redact`: see `Idempotency`.
 */
export const idempotent = <
  Req extends { readonly headers: { readonly "idempotency-key"?: string | undefined } },
  A,
  I,
  E,
  R
>(
  route: string,
  response: Schema.Schema<A, I>,
  handler: (request: Req) => Effect.Effect<A, E, R>,
  options: { readonly redact?: (a: A) => A } = {}
) =>
(request: Req): Effect.Effect<A, E | Errors.Conflict, R | Idempotency> =>
  Effect.gen(function*() {
    const idempotency = yield* Idempotency
    const caller = yield* currentUser
    const { payload, path } = request as { readonly payload?: unknown; readonly path?: unknown }
    return yield* idempotency.run(
      {
        userId: caller.id,
        key: request.headers["idempotency-key"],
        route,
        request: { payload, path },
        response,
        redact: options.redact
      },
      handler(request)
    )
  })
