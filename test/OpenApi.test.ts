import SwaggerParser from "@apidevtools/swagger-parser"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Wallet as WalletApi } from "@shoal/domain"
import { localServers, openApiTransform } from "@shoal/domain/OpenApiDoc"
import addFormats from "ajv-formats"
import Ajv2020 from "ajv/dist/2020.js"
import { Effect, Schema } from "effect"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"
import { baseUrl } from "./Mcp/support.js"
import { rawRequest } from "./support/Raw.js"
import { describeApp, signUp } from "./support/TestApp.js"
import { describeWallet, walletRaw, WalletUrl } from "./Wallet/support.js"

/**
 * What third-party clients do with `/openapi.json`: lint it (Redocly), compile its schemas (ajv, JSON Schema
 * 2020-12), generate a typed client (openapi-typescript + openapi-fetch) — and what agent developers read in it.
 */

type Json = Record<string, any>

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

const operationsOf = (doc: Json) =>
  Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    methods.filter((m) => item[m] !== undefined).map((method) => ({ path, method, op: item[method] as Json }))
  )

const tempDir = (prefix: string) => Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))

const fetchDoc = Effect.map(rawRequest("GET", "/openapi.json"), (res) => {
  expect(res.status).toBe(200)
  return res.body as Json
})

/** Every schema under `components.schemas` compiled by ajv 2020-12 in strict mode, `$ref`s resolved in the document. */
const compileAll = (doc: Json) => {
  const ajv = new Ajv2020.default({ strict: true, allErrors: true })
  addFormats.default(ajv)
  const id = "https://shoal.invalid/openapi.json"
  // the document's own fields are not schema keywords: known (so strict mode accepts the document), never checked
  ajv.addVocabulary([
    "openapi",
    "info",
    "jsonSchemaDialect",
    "servers",
    "paths",
    "webhooks",
    "components",
    "security",
    "tags",
    "externalDocs"
  ])
  ajv.addSchema(doc, id)
  const validators: Record<string, ReturnType<typeof ajv.compile>> = {}
  for (const name of Object.keys(doc.components.schemas)) {
    validators[name] = ajv.compile({
      $ref: `${id}#/components/schemas/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`
    })
  }
  const validate = (schema: Json, data: unknown) => {
    const v = ajv.compile({ $id: `https://shoal.invalid/check/${Math.random()}`, ...rebase(schema, id) })
    if (!v(data)) throw new Error(`${JSON.stringify(v.errors, null, 1)}\n${JSON.stringify(data).slice(0, 800)}`)
  }
  return { validators, validate }
}

/** A schema lifted out of the document, its local `$ref`s pointed back into it. */
const rebase = (node: any, id: string): any =>
  Array.isArray(node)
    ? node.map((n) => rebase(n, id))
    : node && typeof node === "object"
    ? Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? `${id}${v}` : rebase(v, id)])
    )
    : node

const responseSchema = (doc: Json, path: string, method: string, status: number) =>
  doc.paths[path][method].responses[String(status)].content["application/json"].schema as Json

/** Redocly's `recommended` rules over a document, offline and without telemetry. */
const redocly = (doc: Json) =>
  Effect.gen(function*() {
    const dir = tempDir("shoal-openapi-lint-")
    const file = Path.join(dir, "openapi.json")
    Fs.writeFileSync(file, JSON.stringify(doc, null, 2))
    const stdout = yield* Effect.async<string>((resume) => {
      execFile(
        Path.join(root, "node_modules/.bin/redocly"),
        ["lint", "--extends", "recommended", file, "--format", "json"],
        {
          cwd: dir,
          timeout: 60_000,
          env: {
            ...process.env,
            REDOCLY_TELEMETRY: "off",
            REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
            NO_COLOR: "1"
          }
        },
        // it exits 1 when it finds errors: the report is on stdout either way
        (_error, out) => resume(Effect.succeed(out))
      )
    })
    Fs.rmSync(dir, { recursive: true, force: true })
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number }
      problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>
    }
    return report
  })

describeApp()("OpenAPI document", (it) => {
  it.effect("Redocly's recommended rules find no error (offline, no telemetry)", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDoc
      const report = yield* redocly(doc)
      const summary = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)
      expect(summary.filter((s) => s.startsWith("error"))).toEqual([])
      expect(report.totals.errors).toBe(0)
      // the one warning left: the project has no license to declare
      expect(report.problems.map((p) => p.ruleId)).toEqual(["info-license"])
    }))

  it.effect("swagger-parser validates both documents (the agent API's as served, the wallet API's)", () =>
    Effect.gen(function*() {
      const served = yield* fetchDoc
      for (const doc of [served, OpenApi.fromApi(WalletApi.WalletApi) as Json]) {
        // it dereferences in place: give it a copy
        const api = yield* Effect.promise(() => SwaggerParser.validate(structuredClone(doc) as never))
        expect(api.info.title).toBeTruthy()
      }
    }))

  it.effect("servers name the host the request reached (Host, X-Forwarded-Proto); the document stays valid", () =>
    Effect.gen(function*() {
      const at = (headers: Record<string, string>) =>
        Effect.map(rawRequest("GET", "/openapi.json", { headers }), (r) => {
          expect(r.status).toBe(200)
          return r.body as Json
        })
      const doc = yield* at({ host: "example.test:9999" })
      expect(doc.servers[0].url).toBe("http://example.test:9999")
      expect(doc.servers[1]).toMatchObject({
        url: "http://{host}:{port}",
        variables: { host: { default: "example.test" }, port: { default: "9999" } }
      })
      yield* Effect.promise(() => SwaggerParser.validate(structuredClone(doc) as never))
      compileAll(doc)
      // behind a TLS proxy: https, its default port left out of the URL
      expect((yield* at({ host: "Shoal.Example.test", "x-forwarded-proto": "https" })).servers[0].url)
        .toBe("https://shoal.example.test")
      // a Host that is no host name is never echoed: the relative entry stays
      expect((yield* at({ host: "evil.test/<script>" })).servers[0].url).toBe("/")
      // /docs still serves the Swagger UI of the same API
      const docs = yield* rawRequest("GET", "/docs")
      expect(docs.status).toBe(200)
      expect(docs.headers["content-type"]).toContain("text/html")
    }))

  it.effect("ajv (JSON Schema 2020-12) compiles every component schema, and real answers match them", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDoc
      expect(JSON.stringify(doc)).not.toContain("\"$id\"")
      const { validate, validators } = compileAll(doc)
      expect(Object.keys(validators).length).toBeGreaterThan(20)

      // the documented bodies are the ones the server sends (formats included: uuid, date-time, uri)
      const human = yield* signUp()
      const me = yield* rawRequest("GET", "/api/agent/me", { key: human.api_key })
      validate(responseSchema(doc, "/api/agent/me", "get", 200), me.body)
      const events = yield* rawRequest("GET", "/api/agent/events?limit=5", { key: human.api_key })
      validate(responseSchema(doc, "/api/agent/events", "get", 200), events.body)
      const badLimit = yield* rawRequest("GET", "/api/agent/events?limit=0", { key: human.api_key })
      expect(badLimit.status).toBe(400)
      validate(responseSchema(doc, "/api/agent/events", "get", 400), badLimit.body)
      const anonymous = yield* rawRequest("GET", "/api/agent/me")
      expect(anonymous.status).toBe(401)
      validate(responseSchema(doc, "/api/agent/me", "get", 401), anonymous.body)
      const health = yield* rawRequest("GET", "/health")
      validate(responseSchema(doc, "/health", "get", 200), health.body)

      // and so are the documented headers
      const documented = (path: string, method: string, status: number) =>
        Object.keys(doc.paths[path][method].responses[String(status)].headers ?? {}).map((h) => h.toLowerCase())
      for (const h of documented("/api/agent/me", "get", 200)) expect(me.headers[h]).toBeDefined()
      for (const h of documented("/api/agent/me", "get", 401)) expect(anonymous.headers[h]).toBeDefined()
    }))

  it.effect("a client generated by openapi-typescript polls events with numbers (openapi-fetch typechecks)", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDoc
      const generated = yield* Effect.promise(async () => astToString(await openapiTS(doc as any)))
      const dir = tempDir("shoal-openapi-client-")
      Fs.writeFileSync(Path.join(dir, "schema.d.ts"), generated)
      Fs.writeFileSync(
        Path.join(dir, "poll.ts"),
        `import createClient from "openapi-fetch"
import type { paths } from "./schema.js"

export const pollForever = async (key: string, handle: (type: string, data: unknown) => void) => {
  const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8080", headers: { authorization: \`Bearer \${key}\` } })
  let cursor: number | undefined = undefined
  for (;;) {
    const { data, error, response } = await client.GET("/api/agent/events", {
      params: { query: { after: cursor, limit: 100 } }
    })
    if (data === undefined) {
      if (response.status === 429) {
        const wait: number = Number(response.headers.get("Retry-After") ?? "1")
        await new Promise((r) => setTimeout(r, wait * 1000))
        continue
      }
      throw new Error(error.error.code + ": " + error.error.message)
    }
    for (const e of data.events) handle(e.type, e.data)
    const next: number = data.next_cursor
    cursor = next
    if (!data.has_more) await new Promise((r) => setTimeout(r, 1000))
  }
}

export const wrong = async (client: ReturnType<typeof createClient<paths>>) => {
  // @ts-expect-error a cursor is a number, not a string
  await client.GET("/api/agent/events", { params: { query: { after: "12" } } })
  // @ts-expect-error \`page\` is not a parameter of this operation
  await client.GET("/api/agent/events", { params: { query: { page: 2 } } })
  const sign = await client.POST("/api/accounts", { body: { handle: "alice", display_name: "Alice" } })
  const key: string | undefined = sign.data?.api_key
  return key
}
`
      )
      const program = ts.createProgram([Path.join(dir, "poll.ts")], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
        types: [],
        skipLibCheck: true,
        paths: { "openapi-fetch": [Path.join(root, "node_modules/openapi-fetch/dist/index.d.mts")] }
      })
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) =>
        `${d.file?.fileName ?? ""}:${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
      )
      Fs.rmSync(dir, { recursive: true, force: true })
      expect(diagnostics).toEqual([])
      expect(generated).toMatch(/after\?: number/)
      expect(generated).toMatch(/limit\?: number/)
    }))

  it.effect("every operation is described, identified, and says which key it needs", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDoc
      expect(doc.openapi).toBe("3.1.0")
      expect(doc.servers.length).toBeGreaterThan(0)
      // the server that served it, as the request reached it (the test server's own port, not the default 8080)
      const port = (yield* baseUrl).split(":")[2]
      expect(doc.servers[0].url).toBe(`http://127.0.0.1:${port}`)
      expect(doc.servers.some((s: Json) => s.url.includes("{port}") && s.variables.port.default === port)).toBe(true)
      // describes what exists, in the project's words, and points at nothing outside the document
      expect(doc.info.description).not.toMatch(/gem/i)
      expect(JSON.stringify(doc)).not.toContain("../")
      expect(doc.tags.every((t: Json) => typeof t.description === "string" && t.description.length > 0)).toBe(true)

      const ops = operationsOf(doc)
      expect(ops.length).toBeGreaterThanOrEqual(18)
      const ids = ops.map(({ op }) => op.operationId)
      expect(new Set(ids).size).toBe(ids.length)
      for (const { method, op, path } of ops) {
        const where = `${method.toUpperCase()} ${path}`
        expect(op.summary, where).toMatch(/^\S.{5,}/)
        expect(op.description, where).toMatch(/^\S.{10,}/)
        const keyed = op.responses["401"] !== undefined
        expect(op.security, where).toEqual(keyed ? [{ bearer: [] }, { apiKey: [] }] : [])
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          const headers = Object.keys(response.headers ?? {})
          if (keyed && status !== "401") {
            expect(headers, `${where} ${status}`).toEqual(
              expect.arrayContaining(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"])
            )
          }
          if (status === "429") expect(headers, where).toContain("Retry-After")
          if (status === "401") expect(headers, where).toEqual(["WWW-Authenticate"])
          // every error body is the contract's envelope
          if (Number(status) >= 400) {
            const schema = response.content["application/json"].schema
            const ref: string = schema.$ref
            const body = doc.components.schemas[ref.split("/").pop()!]
            expect(body.required, `${where} ${status}`).toEqual(["status", "error"])
            expect(body.properties.error.required).toEqual(["code", "message"])
          }
        }
        const takesIdempotencyKey = (op.parameters ?? []).some((p: Json) => p.name === "idempotency-key")
        const success = Object.entries<Json>(op.responses).filter(([s]) => s.startsWith("2"))
        for (const [, r] of success) {
          expect(Object.keys(r.headers ?? {}).includes("Idempotent-Replayed"), where).toBe(takesIdempotencyKey)
        }
      }
      expect(ops.some(({ op }) => (op.parameters ?? []).some((p: Json) => p.name === "idempotency-key"))).toBe(true)

      // numbers in the query string are integers with their bounds
      const query = (path: string, name: string) =>
        doc.paths[path].get.parameters.find((p: Json) => p.in === "query" && p.name === name).schema
      expect(query("/api/agent/events", "after")).toMatchObject({ type: "integer", minimum: 0 })
      expect(query("/api/agent/events", "limit")).toMatchObject({ type: "integer", minimum: 1, maximum: 500 })
      expect(query("/api/agent/webhooks/deliveries", "limit")).toMatchObject({
        type: "integer",
        minimum: 1,
        maximum: 100
      })
      for (const { op } of ops) {
        for (const p of op.parameters ?? []) expect(p.schema.description ?? "").not.toMatch(/decoded into a number/)
      }
    }))

  it("the transform serves any HttpApi: another API's servers, numbers, ids, and a webhooks section left alone", () => {
    class Other extends HttpApi.make("other")
      .add(
        HttpApiGroup.make("things").add(
          HttpApiEndpoint.get("list", "/things")
            .setUrlParams(Schema.Struct({ page: Schema.optional(Schema.NumberFromString) }))
            .addSuccess(Schema.Struct({ data: Schema.Unknown, more: Schema.Unknown }))
        )
      )
      .annotate(
        OpenApi.Transform,
        (spec) => ({
          ...openApiTransform({
            servers: localServers({ name: "wallet API", port: 8081, portVariable: "WALLET_PORT" })
          })(
            spec
          ),
          webhooks: { "thing.created": { post: { responses: { "200": { description: "ok" } } } } }
        })
      )
    {}
    const doc = OpenApi.fromApi(Other) as Json
    expect(doc.servers[1].variables.port.default).toBe("8081")
    expect(doc.paths["/things"].get.parameters[0].schema).toEqual({ type: "number" })
    expect(doc.paths["/things"].get.security).toEqual([])
    expect(JSON.stringify(doc)).not.toContain("\"$id\"")
    expect(doc.webhooks["thing.created"]).toBeDefined()
    expect(openApiTransform({ servers: [] })({ openapi: "3.1.0", paths: {}, webhooks: { a: { post: {} } } }))
      .toMatchObject({ webhooks: { a: { post: {} } } })
    compileAll(doc)
  })

  it.effect("the wallet API's document passes the same checks (Redocly, ajv)", () =>
    Effect.gen(function*() {
      const doc = OpenApi.fromApi(WalletApi.WalletApi) as Json
      const report = yield* redocly(doc)
      expect(report.problems.filter((p) => p.severity === "error")).toEqual([])
      expect(report.problems.map((p) => p.ruleId)).toEqual(["info-license"])
      const { validators } = compileAll(doc)
      expect(Object.keys(validators)).toEqual(expect.arrayContaining(["ConversionRate", "Balance"]))
      expect(doc.servers[1].variables.port.default).toBe("8081")
      for (const { op } of operationsOf(doc)) {
        expect(op.summary).toBeTruthy()
        expect(op.description).toBeTruthy()
      }
    }))
})

describeWallet()("the wallet API's served document", (it) => {
  it.effect("names the wallet server the request reached, and swagger-parser validates it", () =>
    Effect.gen(function*() {
      // (fetch sends its own Host: the wallet's real address, not the default 127.0.0.1:8081's port)
      const served = yield* walletRaw("GET", "/openapi.json")
      expect(served.status).toBe(200)
      const base = (yield* WalletUrl).replace(/\/$/, "")
      expect(served.body.servers[0].url).toBe(base)
      expect(served.body.servers[1].variables.port.default).toBe(new URL(base).port)
      yield* Effect.promise(() => SwaggerParser.validate(structuredClone(served.body) as never))
      compileAll(served.body)
    }))
})
