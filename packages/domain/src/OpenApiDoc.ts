import type * as OpenApi from "@effect/platform/OpenApi"

/**
 * Post-processing of a generated OpenAPI document, for any of our HttpApis (the agent API, the wallet API):
 *
 * - our 400 (`invalid_request`) replaces HttpApi's built-in decode error everywhere;
 * - the `$id`s Effect puts on built-in schemas (`Schema.Unknown` → `"/schemas/unknown"` …) are removed: repeated in
 *   one document they make it invalid JSON Schema 2020-12 (ajv refuses to compile it);
 * - the key schemes are declared on every operation that can answer 401 (the authentication middleware reads both
 *   headers itself, so HttpApi does not know about them), and public operations keep an empty `security`;
 * - the response headers the server sets are documented: `RateLimit-*` on keyed operations, `Retry-After` on 429,
 *   `WWW-Authenticate` on 401, `Idempotent-Replayed` on the success of operations taking `Idempotency-Key`;
 * - a request body that may be `null` (`Fields.optionalBody`: all its fields optional) is documented as an optional
 *   body of that object: send it empty, `{}` or with no Content-Type;
 * - the 400's `details` is documented: `{ field, issues: [{ field, message }] }` (see `ErrorDetails`);
 * - `servers` is set from the options.
 *
 * A `webhooks` section (OpenAPI 3.1) added by a further step is left as it is.
 */
import { addEventWebhooks } from "./EventWebhooks.js"

type Json = Record<string, any>

export interface OpenApiTransformOptions {
  /** Where the API is served: shown to readers of the document and used by generated clients and `/docs`. */
  readonly servers: ReadonlyArray<OpenApi.OpenAPISpecServer>
}

/**
 * The usual `servers` of one of our APIs: the server that served the document (a relative URL, right for `/docs`
 * wherever the service runs), then the configured address as a template with the default host and port.
 */
export const localServers = (
  options: { readonly port: number; readonly name: string; readonly portVariable: string }
) =>
  [
    { url: "/", description: `this server: the ${options.name} that served this document` },
    {
      url: "http://{host}:{port}",
      // no `description` on the variables: the OpenAPI 3.1 JSON Schema that swagger-parser validates against
      // misspells that key (`descriptions`) and refuses the document; the server's description names them instead
      description: `the ${options.name} as configured: host is HOST, port is ${options.portVariable}`,
      variables: { host: { default: "127.0.0.1" }, port: { default: String(options.port) } }
    }
  ] satisfies ReadonlyArray<OpenApi.OpenAPISpecServer>

/** Where a request reached the server: its scheme, and the host and port its `Host` header named. */
export interface Origin {
  readonly protocol: "http" | "https"
  readonly host: string
  readonly port: string
}

/**
 * `localServers` as the server at `origin` serves them: the first entry the absolute URL of that server (a generated
 * client or a reader elsewhere cannot resolve `/`), the template's defaults that host and port.
 */
export const serversAt = (
  servers: ReadonlyArray<OpenApi.OpenAPISpecServer>,
  origin: Origin
): ReadonlyArray<OpenApi.OpenAPISpecServer> => {
  const usual = origin.port === (origin.protocol === "https" ? "443" : "80")
  return servers.map((server) =>
    server.url === "/"
      ? { ...server, url: `${origin.protocol}://${origin.host}${usual ? "" : `:${origin.port}`}` }
      : server.variables?.host !== undefined && server.variables.port !== undefined
      ? {
        ...server,
        variables: {
          ...server.variables,
          host: { ...server.variables.host, default: origin.host },
          port: { ...server.variables.port, default: origin.port }
        }
      }
      : server
  )
}

const decodeErrorRef = "#/components/schemas/HttpApiDecodeError"

const dropDecodeError = (node: unknown): unknown => {
  if (Array.isArray(node)) {
    return node
      .filter((n) => !(n && typeof n === "object" && n.$ref === decodeErrorRef))
      .map(dropDecodeError)
  }
  if (node && typeof node === "object") {
    const out: Json = {}
    for (const [k, v] of Object.entries(node)) out[k] = dropDecodeError(v)
    // an anyOf left with one member is that member
    if (Array.isArray(out.anyOf) && out.anyOf.length === 1 && Object.keys(out).length === 1) return out.anyOf[0]
    return out
  }
  return node
}

// keys whose values are data, not schemas: never rewritten
const dataKeys = new Set(["example", "examples", "default", "const", "enum"])
// the placeholder titles Effect gives the built-in schemas it marks with `$id: "/schemas/…"`
const builtinTitles = new Set(["unknown", "any", "object", "{}", "void", "never"])

/** Effect marks built-in schemas with `$id: "/schemas/…"`; more than one in a document is invalid JSON Schema. */
const dropBuiltinIds = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(dropBuiltinIds)
  if (node && typeof node === "object") {
    const out: Json = {}
    const builtin = typeof (node as Json).$id === "string" && (node as Json).$id.startsWith("/schemas/")
    for (const [k, v] of Object.entries(node)) {
      if (builtin && (k === "$id" || (k === "title" && builtinTitles.has(v)))) continue
      out[k] = dataKeys.has(k) ? v : dropBuiltinIds(v)
    }
    return out
  }
  return node
}

/** The refs to `#/components/schemas/…` anywhere under a node. */
const schemaRefs = (node: unknown, into: Set<string>): Set<string> => {
  if (Array.isArray(node)) { for (const n of node) schemaRefs(n, into) }
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/")) {
        into.add(decodeURIComponent(v.slice("#/components/schemas/".length)).replace(/~1/g, "/").replace(/~0/g, "~"))
      } else if (!dataKeys.has(k)) schemaRefs(v, into)
    }
  }
  return into
}

/** Drops these schemas once nothing refers to them (other unused schemas are left alone). */
const dropUnreferenced = (doc: Json, names: ReadonlyArray<string>): void => {
  const schemas: Json | undefined = doc.components?.schemas
  if (!schemas) return
  const { schemas: _, ...rest } = doc.components
  const used = schemaRefs({ ...doc, components: rest }, new Set())
  // transitive closure over the schemas themselves
  const queue = [...used]
  while (queue.length > 0) {
    const name = queue.pop()!
    for (const ref of schemaRefs(schemas[name], new Set())) {
      if (!used.has(ref)) {
        used.add(ref)
        queue.push(ref)
      }
    }
  }
  for (const name of names) if (!used.has(name)) delete schemas[name]
}

/**
 * A number in the query string is a number to clients, whatever the schema does to decode it from text (a plain
 * `Schema.NumberFromString`; `Fields.IntParam` documents the integer and its bounds itself).
 */
const numberFromString = (doc: Json, schema: Json | undefined): boolean => {
  const ref = schema?.$ref
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
    return numberFromString(doc, doc.components?.schemas?.[ref.slice("#/components/schemas/".length)])
  }
  return schema?.type === "string" && schema.description === "a string to be decoded into a number"
}

const operations = (doc: Json): Array<Json> =>
  Object.values<Json>(doc.paths ?? {}).flatMap((item) =>
    ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
      .map((m) => item[m])
      .filter((op): op is Json => op !== undefined && op !== null && typeof op === "object")
  )

const headers: Json = {
  "RateLimit-Limit": {
    description: "Requests the key may make per minute: the size of its token bucket.",
    schema: { type: "integer", minimum: 0 }
  },
  "RateLimit-Remaining": {
    description: "Requests left in the key's bucket after this one.",
    schema: { type: "integer", minimum: 0 }
  },
  "RateLimit-Reset": {
    description: "Seconds until the key's bucket is full again.",
    schema: { type: "integer", minimum: 0 }
  },
  "Retry-After": {
    description: "Seconds to wait before the next request with this key.",
    required: true,
    schema: { type: "integer", minimum: 1 }
  },
  "WWW-Authenticate": {
    description: "`Bearer`: send the key as `Authorization: Bearer <key>` (or `X-API-Key: <key>`).",
    required: true,
    schema: { type: "string", enum: ["Bearer"] }
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`.",
    schema: { type: "string", enum: ["true"] }
  }
}

const addHeaders = (response: Json, names: ReadonlyArray<string>, used: Set<string>): void => {
  if (names.length === 0) return
  response.headers = { ...response.headers }
  for (const name of names) {
    used.add(name)
    response.headers[name] = { $ref: `#/components/headers/${name}` }
  }
}

const rateLimitHeaders = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]

/** `anyOf: [X, {type: "null"}]` as the body of `Fields.optionalBody`: an optional body X (null is no body). */
const optionalRequestBody = (op: Json): void => {
  const content: Json | undefined = op.requestBody?.content
  if (content === undefined) return
  let optional = false
  for (const media of Object.values<Json>(content)) {
    const anyOf = media?.schema?.anyOf
    if (!Array.isArray(anyOf) || !anyOf.some((s: Json) => s?.type === "null")) continue
    const rest = anyOf.filter((s: Json) => s?.type !== "null")
    if (rest.length !== 1) continue
    media.schema = rest[0]
    optional = true
  }
  if (optional) op.requestBody.required = false
}

/** The one shape of `error.details` for an input to fix (`ErrorDetails.FieldDetails`). */
const fieldDetailsSchema: Json = {
  type: "object",
  description: "What to fix. For a 400 (and any error about the input: 409, 422 …) `details` is this object, for " +
    "schema and rule errors alike: `field` names the first field at fault (`\"\"` for the body as a whole) and, " +
    "when the input's form is at fault, `issues` lists every field with what it takes " +
    "(`{\"field\":\"title\",\"message\":\"is required\"}`); a rule may add keys of its own (`wave_time`, " +
    "`retry_after`, `allowed` …). Errors not about the input carry other keys (`reason`, `database`).",
  properties: {
    field: { type: "string" },
    issues: {
      type: "array",
      items: {
        type: "object",
        required: ["field", "message"],
        properties: { field: { type: "string" }, message: { type: "string" } }
      }
    }
  }
}

/** The error envelopes' `details`, documented once for every code. */
const documentDetails = (doc: Json): void => {
  for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
    if (!name.endsWith("_error")) continue
    const details = schema?.properties?.error?.properties?.details
    if (details !== undefined && typeof details === "object") {
      schema.properties.error.properties.details = fieldDetailsSchema
    }
  }
}

/** `OpenApi.Transform` for one of our HttpApis. Pure: runs in the browser as well as on the server. */
export const openApiTransform = (options: OpenApiTransformOptions) => (spec: Json): Json => {
  const doc = dropBuiltinIds(dropDecodeError(spec)) as Json
  if (doc.components?.schemas) delete doc.components.schemas.HttpApiDecodeError
  doc.servers = options.servers.map((s) => ({ ...s }))
  doc.components = {
    ...doc.components,
    securitySchemes: {
      ...doc.components?.securitySchemes,
      bearer: { type: "http", scheme: "bearer", description: "The API key as `Authorization: Bearer sk_…`." },
      apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "The API key as `X-API-Key: sk_…`." }
    }
  }
  const used = new Set<string>()
  documentDetails(doc)
  for (const op of operations(doc)) {
    optionalRequestBody(op)
    for (const p of op.parameters ?? []) {
      if (p?.in === "query" && numberFromString(doc, p.schema)) {
        p.schema = { type: "number" }
        delete p.description
      }
    }
    const responses: Json = op.responses ?? {}
    const keyed = responses["401"] !== undefined || (Array.isArray(op.security) && op.security.length > 0)
    if (responses["401"] !== undefined) op.security = [{ bearer: [] }, { apiKey: [] }]
    else if (!keyed) op.security = []
    const idempotent = (op.parameters ?? []).some((p: Json) =>
      p?.in === "header" && typeof p.name === "string" && p.name.toLowerCase() === "idempotency-key"
    )
    for (const [status, response] of Object.entries<Json>(responses)) {
      if (!response || typeof response !== "object" || "$ref" in response) continue
      addHeaders(response, [
        ...(keyed && status !== "401" ? rateLimitHeaders : []),
        ...(status === "429" ? ["Retry-After"] : []),
        ...(status === "401" ? ["WWW-Authenticate"] : []),
        ...(idempotent && status.startsWith("2") ? ["Idempotent-Replayed"] : [])
      ], used)
    }
  }
  // what the decode error and the number rewrite left behind
  dropUnreferenced(doc, ["Issue", "PropertyKey", "NumberFromString"])
  if (used.size > 0) {
    doc.components.headers = { ...doc.components.headers }
    for (const name of Object.keys(headers)) if (used.has(name)) doc.components.headers[name] = headers[name]
  }
  return addEventWebhooks(doc)
}
