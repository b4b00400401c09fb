import type { OpenApi as OpenApiTypes } from "@effect/platform"
import { HttpApi, HttpServer, OpenApi } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Auth, Errors, Ids, ShoalApi, Wallet } from "@shoal/domain"
import { Arbitrary, Effect, Either, FastCheck as fc, Layer, ManagedRuntime, Option, Redacted, Schema } from "effect"
import { Accounts } from "../../src/Accounts.js"
import * as Database from "../../src/Database/Database.js"
import { createHoldingServer } from "../../src/Http/HoldingServer.js"
import { agentApi, Services, Singletons, WalletApiApp } from "../../src/main.js"
import { configLayer, uniqueHandle } from "../support/TestApp.js"
import { TestDatabase } from "../support/TestDatabase.js"

/**
 * Property-based fuzzing of every operation of both OpenAPI documents: requests built from the operations' own
 * schemas (`Arbitrary.make`) and hostile generic input (JSON of any shape, odd strings, content types, query
 * strings, path segments, keys). Every answer must come within 5 s, be 2xx or 4xx with the contract's JSON body
 * (a 2xx matches the operation's success schema, a 4xx is the error envelope with a known code and its status),
 * and a 4xx must leave no row behind. `FUZZ_RUNS` raises the 600 cases per operation. fast-check is effect's copy
 * (`FastCheck`): the arbitraries `Arbitrary.make` builds belong to it.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 600)
/**
 * `FUZZ_FAMILY_RUNS=10000`: the cases are counted per endpoint family (an OpenAPI tag, i.e. one HttpApiGroup) and
 * shared among its operations, each getting at least `FUZZ_RUNS`; the issue's 10,000 per family is this.
 */
const FAMILY_RUNS = Number(process.env.FUZZ_FAMILY_RUNS ?? 0)
/**
 * A fixed seed by default, so CI replays the same cases and a failure reproduces; `FUZZ_SEED=random` (or a number)
 * explores others. The seed of a failure is printed with it.
 */
const SEED = process.env.FUZZ_SEED === "random"
  ? undefined
  : Number(process.env.FUZZ_SEED ?? 20261123)
const ANSWER_WITHIN_MS = 5_000

/**
 * On a PostgreSQL server other test files write to the same database at the same time: the fuzz gets a database
 * of its own there (created, migrated, dropped), so its row counts see only its own requests.
 */
const OwnDatabase = Layer.unwrapScoped(Effect.gen(function*() {
  const url = process.env.DATABASE_URL
  if (!url) return TestDatabase
  const name = `shoal_fuzz_${process.pid}_${Date.now()}`
  const admin = (statement: string) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(Database.layerPg(Redacted.make(url))),
      Effect.scoped,
      Effect.orDie
    )
  yield* Effect.acquireRelease(
    admin(`CREATE DATABASE ${name}`),
    () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  )
  const own = new URL(url)
  own.pathname = `/${name}`
  return Database.layerMigrated(Database.layerPg(Redacted.make(own.toString())))
}))

// no event workers: only a request writes rows, so counts around a 4xx are exact
const node = <E, R>(app: Layer.Layer<never, E, R>) =>
  app.pipe(
    Layer.provideMerge(Services),
    Layer.provideMerge(Singletons),
    // the server npm start runs (its timeouts and JSON transport errors), on a free port
    Layer.provideMerge(NodeHttpServer.layer(() => createHoldingServer(), { host: "127.0.0.1", port: 0 })),
    Layer.provideMerge(OwnDatabase),
    Layer.provide(configLayer({ RATE_LIMIT_PER_MINUTE: "100000000" }))
  )

const TABLES = [
  "users",
  "api_keys",
  "idempotency_keys",
  "events",
  "event_fanouts",
  "webhook_deliveries",
  "webhook_secrets",
  "user_domains",
  "gem_accounts",
  "gem_transactions",
  "gem_entries",
  "gem_bounties",
  "premium_features",
  "gig_applications"
] as const

const countRows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql.unsafe<Record<string, unknown>>(
    `SELECT ${TABLES.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")}`
  )
  return TABLES.map((t) => `${t}=${Number(rows[0]![t])}`).join(" ")
}).pipe(Effect.orDie)

// ---------------------------------------------------------------- the operations

interface Operation {
  readonly id: string
  /** the endpoint family: the operation's OpenAPI tag (its HttpApiGroup) */
  readonly family: string
  readonly method: string
  readonly path: string
  readonly pathParams: ReadonlyArray<string>
  readonly queryParams: ReadonlyArray<string>
  readonly hasBody: boolean
  readonly bodyKeys: ReadonlyArray<string>
  readonly secured: boolean
  readonly payload: Option.Option<Schema.Schema.Any>
  readonly urlParams: Option.Option<Schema.Schema.Any>
  readonly pathSchema: Option.Option<Schema.Schema.Any>
  readonly successes: ReadonlyArray<readonly [number, Schema.Schema.Any]>
}

const endpointsOf = (api: HttpApi.HttpApi.Any) => {
  const byId = new Map<
    string,
    Omit<
      Operation,
      "id" | "family" | "method" | "path" | "pathParams" | "queryParams" | "hasBody" | "bodyKeys" | "secured"
    >
  >()
  HttpApi.reflect(api as any, {
    onGroup() {},
    onEndpoint({ endpoint, group, successes }) {
      const successSchemas = [...successes].flatMap(([status, s]) =>
        Option.isSome(s.ast) ? [[status, Schema.make(s.ast.value)] as const] : []
      )
      byId.set(group.topLevel ? endpoint.name : `${group.identifier}.${endpoint.name}`, {
        payload: endpoint.payloadSchema as unknown as Option.Option<Schema.Schema.Any>,
        urlParams: endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.Any>,
        pathSchema: endpoint.pathSchema as unknown as Option.Option<Schema.Schema.Any>,
        successes: successSchemas
      })
    }
  })
  return byId
}

const operationsOf = (api: HttpApi.HttpApi.Any, doc: OpenApiTypes.OpenAPISpec): Array<Operation> => {
  const endpoints = endpointsOf(api)
  const ops: Array<Operation> = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const op = (item as any)[method] as any
      if (op === undefined) continue
      const endpoint = endpoints.get(op.operationId)
      if (endpoint === undefined) throw new Error(`${op.operationId} is in the document but not in the API`)
      const params: Array<any> = op.parameters ?? []
      const body = op.requestBody?.content?.["application/json"]?.schema
      const resolved = body?.$ref ? doc.components.schemas[body.$ref.split("/").pop()] : body
      ops.push({
        ...endpoint,
        id: op.operationId,
        family: op.tags?.[0] ?? op.operationId,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
        hasBody: op.requestBody !== undefined,
        bodyKeys: Object.keys((resolved as any)?.properties ?? {}),
        secured: (op.security ?? doc.security ?? []).length > 0
      })
    }
  }
  return ops
}

// ---------------------------------------------------------------- hostile input

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: "binary" }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 3_000 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\u0000",
      "a\u0000b",
      "\ud800",
      "x\udfff",
      "\u202eevil",
      "🐟🐟",
      "%00",
      "%",
      "%zz",
      "../../etc/passwd",
      "'; DROP TABLE users; --",
      "\" OR 1=1 --",
      "${jndi:ldap://x}",
      "<script>alert(1)</script>",
      "null",
      "true",
      "0",
      "-1",
      "1e309",
      "NaN",
      "__proto__",
      "constructor",
      "x".repeat(2_049),
      "y".repeat(20_001),
      "javascript:alert(1)",
      "http://127.0.0.1/",
      "http://[::1]/",
      "https://example.com/",
      "npub1",
      "a@b.c",
      "ALICE",
      "al ice"
    )
  }
)

const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -0, 1e308, Number.MAX_SAFE_INTEGER + 2) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 4 }) }
)

/** A schema's values, encoded to the wire; values the arbitrary gets wrong (e.g. untrimmed names) go as they are. */
const fromSchema = (schema: Schema.Schema.Any): fc.Arbitrary<unknown> => {
  const s = schema as Schema.Schema<unknown, unknown>
  const encode = Schema.encodeEither(s)
  return (Arbitrary.make(s) as fc.Arbitrary<unknown>).map((a) => Either.getOrElse(encode(a), () => a))
}

/** Lone surrogates cannot be percent-encoded: they go as U+FFFD (raw invalid UTF-8 is among the constants). */
const wellFormed = (s: string) => s.replace(/\p{Cs}/gu, "\ufffd")

interface Req {
  readonly path: string
  readonly query: string
  readonly body: string | undefined
  readonly contentType: string | undefined
  readonly auth: "key" | "none" | "garbage" | "x-api-key"
  readonly idempotencyKey: string | undefined
}

/** What a keyed caller owns, so some requests name real things. */
interface Known {
  handle: string
  agentHandle: string
}

const requestsFor = (op: Operation, known: Known): fc.Arbitrary<Req> => {
  const encodeSegment = fc.oneof(
    { weight: 5, arbitrary: fc.constant((s: string) => encodeURIComponent(wellFormed(s))) },
    { weight: 1, arbitrary: fc.constant((s: string) => s.replace(/[/?#\s]/g, "")) }
  )
  const schemaPath = Option.map(op.pathSchema, fromSchema)
  const segment = (name: string) =>
    fc.oneof(
      {
        weight: 3,
        arbitrary: Option.isSome(schemaPath)
          ? schemaPath.value.map((p) => String((p as any)?.[name] ?? ""))
          : hostileString
      },
      { weight: 3, arbitrary: hostileString },
      { weight: 2, arbitrary: fc.constantFrom(known.handle, known.agentHandle, "shoal", "eth", "sol") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "%00",
          "%",
          "%zz",
          "..",
          ".",
          "%2F",
          "a%2Fb",
          "%C0%AE",
          "%ED%A0%80",
          "%FF",
          "%E2%80%AE"
        )
      }
    )
  const path = op.pathParams.length === 0
    ? fc.constant(op.path)
    : fc.tuple(fc.tuple(...op.pathParams.map(segment)), encodeSegment).map(([values, enc]) => {
      let p = op.path
      op.pathParams.forEach((name, i) => {
        const v = values[i]!
        const segment = /^%|^\.\.?$/.test(v) ? v : enc(v)
        // an empty segment names another operation (`/api/agent/projects/` is the list), not this one
        p = p.replace(`{${name}}`, segment === "" ? "%20" : segment)
      })
      return p
    })
  const schemaQuery = Option.map(op.urlParams, fromSchema)
  const queryPairs = fc.array(
    fc.tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(op.queryParams.length ? op.queryParams : ["x"])) }, {
        weight: 1,
        arbitrary: hostileString
      }),
      fc.oneof(hostileString, fc.integer().map(String), fc.constantFrom("1", "100", "101", "0", "-5", "1.5", ""))
    ),
    { maxLength: 4 }
  )
  const query = fc.oneof(
    { weight: 4, arbitrary: queryPairs.map((pairs) => new URLSearchParams(pairs).toString()) },
    {
      weight: Option.isSome(schemaQuery) ? 4 : 0,
      arbitrary: Option.isSome(schemaQuery)
        ? schemaQuery.value.map((q) => new URLSearchParams(q as Record<string, string>).toString())
        : fc.constant("")
    },
    { weight: 1, arbitrary: fc.constantFrom("", "%", "a=%zz", "a=%00", "&&&", "=", "q", "q=&q=b", "q[]=1&q[]=2") }
  )
  const schemaBody = Option.map(op.payload, fromSchema)
  const keyedObject = fc.dictionary(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...(op.bodyKeys.length ? op.bodyKeys : ["x"])) }, {
      weight: 1,
      arbitrary: hostileString
    }),
    hostileJson,
    { maxKeys: 6 }
  )
  const jsonBody = fc.oneof(
    {
      weight: Option.isSome(schemaBody) ? 5 : 0,
      arbitrary: Option.isSome(schemaBody) ? schemaBody.value : fc.constant({})
    },
    { weight: 4, arbitrary: keyedObject },
    { weight: 1, arbitrary: hostileJson }
  ).map((v) => JSON.stringify(v) ?? "null")
  const body = op.method === "GET"
    ? fc.constant(undefined)
    : fc.oneof(
      { weight: 8, arbitrary: jsonBody },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom("", "{", "[1,", "\"\\ud800\"", "{\"a\":1}{", "nul", "\u0000") },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) }
    )
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant("application/json") },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "application/json; charset=utf-8",
        "application/merge-patch+json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz",
        "multipart/form-data",
        "application/octet-stream",
        "application/jsonx",
        "*/*",
        ";;;"
      )
    }
  )
  const auth = op.secured
    ? fc.oneof(
      { weight: 8, arbitrary: fc.constant("key" as const) },
      { weight: 1, arbitrary: fc.constantFrom("none" as const, "garbage" as const, "x-api-key" as const) }
    )
    : fc.constantFrom("none" as const, "key" as const)
  const idempotencyKey = fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 300 }).map((s) => s.trim()) }
  )
  return fc.record({ path, query, body, contentType, auth, idempotencyKey })
}

// ---------------------------------------------------------------- the checks

const codeStatus = new Map<string, number>(Object.values(Errors.errorCodes).map(([code, status]) => [code, status]))

interface Answer {
  readonly status: number
  readonly contentType: string | null
  readonly text: string
  readonly ms: number
  /** the path as sent: `..` segments are resolved by the client, so `agents/../api-key` is key rotation */
  readonly sentPath: string
}

const send = async (base: string, op: Operation, req: Req, key: string): Promise<Answer> => {
  const headers: Record<string, string> = {}
  if (req.contentType !== undefined && req.body !== undefined) headers["content-type"] = req.contentType
  if (req.auth === "key") headers.authorization = `Bearer ${key}`
  if (req.auth === "x-api-key") headers["x-api-key"] = key.slice(0, -1) + "x"
  if (req.auth === "garbage") headers.authorization = "Bearer sk_garbage"
  if (req.idempotencyKey !== undefined) headers["idempotency-key"] = req.idempotencyKey
  const started = Date.now()
  const url = `${base}${req.path}${req.query ? `?${req.query}` : ""}`
  const res = await fetch(url, {
    method: op.method,
    headers,
    ...(req.body !== undefined ? { body: req.body } : {}),
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS)
  })
  const text = await res.text()
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    text,
    ms: Date.now() - started,
    sentPath: new URL(url).pathname
  }
}

const templateOf = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}/?$`)

/**
 * The operation a sent path reaches: `op` itself unless the path no longer fits its template. The router, like many,
 * ends the path at a `;` (the rest is parameters), so `/api/agent/projects/;x` is the list, and it reads repeated
 * slashes as one, so a path ending in a backslash (which the client sends as `/`) reaches the list too.
 */
const reached = (operations: ReadonlyArray<Operation>, op: Operation, sentPath: string): Operation => {
  const path = sentPath.split(";")[0]!.replace(/\/{2,}/g, "/")
  return templateOf(op.path).test(path)
    ? op
    : operations.find((o) => o.method === op.method && templateOf(o.path).test(path)) ?? op
}

const problem = (op: Operation, answer: Answer): string | undefined => {
  if (answer.ms > ANSWER_WITHIN_MS) return `answered after ${answer.ms} ms`
  if (answer.status >= 500 || answer.status < 200 || (answer.status >= 300 && answer.status < 400)) {
    return `status ${answer.status}`
  }
  if (!answer.contentType?.startsWith("application/json")) return `content-type ${answer.contentType}`
  let body: any
  try {
    body = JSON.parse(answer.text)
  } catch {
    return "a body that is not JSON"
  }
  if (answer.status >= 400) {
    const code = body?.error?.code
    if (body?.status !== "error" || typeof code !== "string") return "an error without the envelope"
    if (typeof body.error.message !== "string" || body.error.message.length === 0) return "an error without a message"
    if (codeStatus.get(code) !== answer.status) return `code ${code} with status ${answer.status}`
    return undefined
  }
  const schemas = op.successes.filter(([status]) => status === answer.status)
  if (schemas.length === 0) return `undocumented success status ${answer.status}`
  const fits = schemas.some(([, s]) =>
    Either.isRight(Schema.decodeUnknownEither(Schema.encodedSchema(s as Schema.Schema<unknown, unknown>))(body))
  )
  return fits ? undefined : "a success body that does not match the operation's schema"
}

// ---------------------------------------------------------------- the runs

/** Long strings shortened, so a failure reads as one request. */
const shorten = (v: unknown): unknown =>
  JSON.parse(
    JSON.stringify(
      v,
      (_, x) => typeof x === "string" && x.length > 200 ? `${x.slice(0, 200)}…(${x.length} chars)` : x
    ) ?? "null"
  )

const reporter = (details: fc.RunDetails<[Req]>) => {
  if (!details.failed) return
  const [req] = details.counterexample ?? []
  throw new Error(
    `after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath}): ` +
      `${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}\n` +
      `request: ${JSON.stringify(shorten(req))}`.slice(0, 3_000)
  )
}

/** One shard of the operations: CI's two workers each take a file, so the fuzz is not one long file's time. */
interface Shard {
  readonly index: number
  readonly of: number
}

const fuzz = <E>(
  name: string,
  api: HttpApi.HttpApi.Any,
  app: Layer.Layer<HttpServer.HttpServer | SqlClient.SqlClient | Accounts, E, never>,
  shard: Shard
) =>
  describe(`fuzz: ${name} (part ${shard.index + 1} of ${shard.of})`, () => {
    const runtime = ManagedRuntime.make(app)
    const doc = OpenApi.fromApi(api as any)
    const operations = operationsOf(api, doc)

    const familySize = new Map<string, number>()
    for (const op of operations) familySize.set(op.family, (familySize.get(op.family) ?? 0) + 1)
    const runsOf = (op: Operation) => Math.max(RUNS, Math.ceil(FAMILY_RUNS / familySize.get(op.family)!))

    if (shard.index === 0) {
      it("covers every operation of the /openapi.json its server serves", async () => {
        const address = await runtime.runPromise(
          Effect.map(HttpServer.HttpServer, (server) => server.address as HttpServer.TcpAddress)
        )
        const served = await (await fetch(`http://127.0.0.1:${address.port}/openapi.json`)).json() as any
        const servedOps = Object.entries<any>(served.paths).flatMap(([path, item]) =>
          ["get", "post", "put", "patch", "delete"].filter((m) => item[m] !== undefined).map((m) =>
            `${m.toUpperCase()} ${path}`
          )
        )
        expect(operations.map((op) => `${op.method} ${op.path}`).sort()).toEqual(servedOps.sort())
        if (FAMILY_RUNS > 0) {
          const perFamily = [...familySize].map(([family, n]) =>
            `${family}: ${n} operations, ${
              operations.filter((op) => op.family === family).reduce((sum, op) => sum + runsOf(op), 0)
            } cases`
          )
          console.log(`fuzz ${name}, per family:\n  ${perFamily.join("\n  ")}`)
        }
      })
    }

    for (const [opIndex, op] of operations.entries()) {
      if (opIndex % shard.of !== shard.index) continue
      const runs = runsOf(op)
      it(
        `${op.method} ${op.path} (${op.id}): ${runs} cases, 2xx/4xx JSON within 5 s, no row left by a 4xx`,
        async () => {
          const { address, key, known } = await runtime.runPromise(
            Effect.gen(function*() {
              const server = yield* HttpServer.HttpServer
              const accounts = yield* Accounts
              const handle = uniqueHandle("fz")
              const human = yield* accounts.signUp({ handle, display_name: "Fuzz" })
              const agentHandle = uniqueHandle("fza")
              const owner: Auth.Principal = {
                id: human.id,
                handle: Schema.decodeSync(Ids.Handle)(handle),
                userType: "human",
                ownerId: null,
                keyHash: ""
              }
              yield* accounts.createAgent(owner, {
                handle: agentHandle,
                display_name: "Fuzz Agent"
              })
              return {
                address: server.address as HttpServer.TcpAddress,
                key: human.apiKey,
                known: { handle, agentHandle }
              }
            }).pipe(Effect.orDie)
          )
          const base = `http://127.0.0.1:${address.port}`
          let currentKey = key
          const rows = () => runtime.runPromise(countRows)
          const writes = op.method !== "GET"
          const startRows = await rows()
          const began = Date.now()
          const statuses = new Map<number, number>()
          await fc.assert(
            fc.asyncProperty(requestsFor(op, known), async (req) => {
              const before = writes ? await rows() : undefined
              const answer = await send(base, op, req, currentKey)
              statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
              // `.` and `..` segments are resolved by the client: the answer is that of the route actually reached
              const found = problem(reached(operations, op, answer.sentPath), answer)
              if (found !== undefined) {
                throw new Error(`${found}: ${answer.status} ${answer.text.slice(0, 300)}`)
              }
              if (answer.status < 300 && answer.sentPath === "/api/account/api-key" && req.auth === "key") {
                currentKey = JSON.parse(answer.text).api_key
              }
              if (writes && answer.status >= 400) {
                const after = await rows()
                if (after !== before) {
                  throw new Error(`a ${answer.status} left rows behind: ${before} → ${after} (${answer.text})`)
                }
              }
            }),
            { numRuns: runs, endOnFailure: true, reporter, ...(SEED !== undefined ? { seed: SEED + opIndex } : {}) }
          )
          // FUZZ_STATS=true shows how the answers spread, to see the cases reach past validation
          if (process.env.FUZZ_STATS) {
            console.log(
              `${op.family} ${op.id}: ${runs} cases in ${((Date.now() - began) / 1000).toFixed(1)} s`,
              JSON.stringify(Object.fromEntries(statuses))
            )
          }
          // a GET never writes a row, whatever it answered
          if (!writes) expect(await rows()).toBe(startRows)
        },
        // 600 cases take well under a minute; a family run's 10,000 on one operation gets its time
        Math.max(300_000, runs * 100)
      )
    }

    it("stops its server", () => runtime.dispose())
  })

/** The fuzz of both APIs' operations whose index falls in this shard (the seeds do not depend on the split). */
export const fuzzBothApis = (shard: Shard) => {
  fuzz("agent API", ShoalApi, node(agentApi(Layer.empty)), shard)
  fuzz("wallet API", Wallet.WalletApi, node(WalletApiApp), shard)
}
