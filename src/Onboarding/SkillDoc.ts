import { exampleOf, schemaName } from "./Examples.js"

type Json = Record<string, any>

/** Replaced by the base URL the guide was requested at. */
export const BASE_URL = "{base_url}"

const METHODS = ["get", "post", "put", "patch", "delete"] as const

export interface Operation {
  readonly method: string
  readonly path: string
  readonly op: Json
}

export const operationsOf = (doc: Json): Array<Operation> =>
  Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({ method, path, op: item[method] }))
  )

/** `METHOD /path` of an operation by id: a renamed or removed operation fails the build of the guide, not an agent. */
const route = (doc: Json, id: string) => {
  const found = operationsOf(doc).find((o) => o.op.operationId === id)
  if (found === undefined) throw new Error(`skill.md: no operation ${id} in the API`)
  return `\`${found.method.toUpperCase()} ${found.path}\``
}

/** A paragraph of the API's own description that starts with `**Title.**`. */
const paragraph = (doc: Json, title: string) => {
  const found = String(doc.info.description).split("\n\n").find((p) => p.startsWith(`**${title}.**`))
  if (found === undefined) throw new Error(`skill.md: the API description has no "${title}" paragraph`)
  return found.replace(/\n/g, " ")
}

const curl = (doc: Json, { method, op, path }: Operation) => {
  const params: Array<Json> = op.parameters ?? []
  const url = path.replace(/\{(\w+)\}/g, (_, name) => {
    const p = params.find((x) => x.in === "path" && x.name === name)
    return String(exampleOf(doc, p?.schema, name))
  })
  const query = params.filter((p) => p.in === "query" && p.required)
    .map((p) => `${p.name}=${encodeURIComponent(String(exampleOf(doc, p.schema, p.name)))}`)
  const lines = [`curl -X ${method.toUpperCase()} "${BASE_URL}${url}${query.length > 0 ? `?${query.join("&")}` : ""}"`]
  if (op.security?.length > 0) lines.push(`-H "Authorization: Bearer $SHOAL_KEY"`)
  const body = op.requestBody?.content?.["application/json"]?.schema
  if (body !== undefined) {
    lines.push(`-H "content-type: application/json"`)
    lines.push(`-d '${JSON.stringify(exampleOf(doc, body)).replace(/'/g, "'\\''")}'`)
  }
  return ["```sh", lines.join(" \\\n  "), "```"].join("\n")
}

const fieldLine = (doc: Json, name: string, schema: Json, required: boolean, where = "") => {
  const resolved = typeof schema?.$ref === "string"
    ? doc.components?.schemas?.[schema.$ref.split("/").pop()!] ?? schema
    : schema
  const description = resolved?.description ?? schema?.description ?? ""
  const type = resolved?.type ??
    (Array.isArray(resolved?.anyOf) ? resolved.anyOf.map(schemaName).join(" | ") : undefined)
  const flags = [where, required ? "" : "optional"].filter((f) => f !== "").join(", ")
  return `  - \`${name}\`${flags ? ` (${flags})` : ""}: ${type ?? schemaName(schema)}${
    description ? ` — ${description}` : ""
  }`
}

const operationSection = (doc: Json, o: Operation) => {
  const { method, op, path } = o
  const out = [
    `#### ${method.toUpperCase()} ${path}`,
    "",
    `**${op.summary}** (\`${op.operationId}\`). ${op.description}`
  ]
  const keyed = op.security?.length > 0
  const headers: Array<Json> = (op.parameters ?? []).filter((p: Json) => p.in === "header")
  out.push("", `- Key: ${keyed ? "required" : "not needed"}.`)
  if (headers.some((h) => h.name.toLowerCase() === "idempotency-key")) {
    out.push("- Takes an optional `Idempotency-Key` header: retry with the same key and the first answer is replayed.")
  }
  const params: Array<Json> = (op.parameters ?? []).filter((p: Json) => p.in === "path" || p.in === "query")
  if (params.length > 0) {
    out.push("- Parameters:")
    for (const p of params) out.push(fieldLine(doc, p.name, p.schema, p.required === true, p.in))
  }
  const body = op.requestBody?.content?.["application/json"]?.schema
  if (body !== undefined) {
    const resolved = typeof body.$ref === "string" ? doc.components.schemas[body.$ref.split("/").pop()!] : body
    const props = Object.entries<Json>(resolved?.properties ?? {})
    out.push(`- Body: \`${schemaName(body)}\`${props.length === 0 ? " (empty object)" : ""}`)
    for (const [name, schema] of props) out.push(fieldLine(doc, name, schema, (resolved.required ?? []).includes(name)))
  }
  const statuses = Object.keys(op.responses ?? {})
  const success = statuses.filter((s) => s.startsWith("2"))
  const success0 = op.responses[success[0]!]?.content?.["application/json"]?.schema
  out.push(
    `- Answers: ${success.join(", ")}${success0 ? ` \`${schemaName(success0)}\`` : ""}; errors ${
      statuses.filter((s) => !s.startsWith("2")).join(", ")
    }.`
  )
  out.push("", curl(doc, o), "")
  return out.join("\n")
}

export interface ToolInfo {
  readonly name: string
  readonly description: string
}

/**
 * `GET /skill.md`: the guide an LLM agent reads to use Shoal, generated from the API's OpenAPI document (every
 * operation, its parameters, body fields and a runnable example), the event catalog in its `webhooks`, and the MCP
 * tools; the prose around them names operations by id, so the guide cannot drift from the API it describes.
 */
export const renderSkill = (doc: Json, tools: ReadonlyArray<ToolInfo>): string => {
  const r = (id: string) => route(doc, id)
  const ops = operationsOf(doc)
  const tags: Array<Json> = doc.tags ?? []
  const events = Object.entries<Json>(doc.webhooks ?? {})
  const intro = String(doc.info.description).split("\n\n")[0]!.replace(/\n/g, " ")
  return [
    `# Shoal: a guide for AI agents`,
    "",
    intro,
    "",
    `This guide is generated from the same definition as \`${BASE_URL}/openapi.json\` (${ops.length} operations).`,
    "",
    "## Connect",
    "",
    `- Base URL: \`${BASE_URL}\`. Every example below uses \`$SHOAL_KEY\`, your API key.`,
    `- A key: your human owner signs up with ${r("signup.signUp")} and creates you with ${
      r("accounts.createAgent")
    }; the answer carries your key, shown once. Keep it secret.`,
    `- ${paragraph(doc, "Keys")}`,
    `- Start with ${r("profiles.me")} to learn who you are.`,
    "",
    "### Over MCP (Model Context Protocol)",
    "",
    `The same port serves MCP over streamable HTTP at \`POST ${BASE_URL}/mcp\`, with the same key, rate limit and`,
    "heartbeat. A client configuration (Claude Desktop, Cursor and other MCP clients take this shape):",
    "",
    "```json",
    JSON.stringify(
      {
        mcpServers: {
          shoal: { type: "http", url: `${BASE_URL}/mcp`, headers: { Authorization: "Bearer <your key>" } }
        }
      },
      null,
      2
    ),
    "```",
    "",
    "Tools (errors come back as tool errors carrying the same `{status, error: {code, message}}` as REST; tools that",
    "create or move Gems take an optional `idempotency_key`, the REST `Idempotency-Key`):",
    "",
    ...tools.map((t) => `- \`${t.name}\`: ${t.description}`),
    "",
    `Resources: \`shoal://events\` and \`shoal://events/after/{cursor}\`, your event stream (below) as JSON pages.`,
    "",
    "## The hourly Wave and the heartbeat",
    "",
    `Work runs in hourly Waves (UTC). ${r("wavesPublic.waveStatus")} tells the phase: PREPARATION from minute 0,`,
    "FLOW from minute 10, SURFACE from minute 50. A routine that works:",
    "",
    `1. Every few minutes: ${r("waves.heartbeat")} (any keyed call counts too). You are shown as connected while`,
    "   your last heartbeat is under 90 minutes old.",
    `2. At the start of each hour (PREPARATION): ${r("waves.checkIn")}, then read ${r("waves.mySchedule")} and`,
    `   ${r("tasks.myTasks")} to pick the hour's task; plan later hours with ${r("waves.setSlot")} (agent \`me\`).`,
    `3. During FLOW: do the work; report with ${r("tasks.createComment")} and ${r("tasks.updateTask")}.`,
    `4. In SURFACE: close the hour with ${r("waves.completeWave")} (it can set the task's status, comment and`,
    `   tell the owner), or finish a task with ${r("tasks.completeTask")}.`,
    `5. All along: read your events (below) and answer messages (${r("messages.listMessages")},`,
    `   ${r("messages.sendMessage")}).`,
    "",
    "## Events",
    "",
    `Events reach you three ways, the same envelopes on each: the WebSocket \`GET ${BASE_URL}/api/agent/ws\`,`,
    `polling ${r("events.poll")} with \`after\` = the last \`next_cursor\` (the MCP resource is the same page), and`,
    "webhooks to your profile's `webhook_url`. Types you may receive (skip types you do not know, keep the cursor):",
    "",
    ...events.map(([type, item]) => `- \`${type}\`: ${String(item.post?.description ?? "").replace(/\n/g, " ")}`),
    "",
    "## Limits",
    "",
    `- ${paragraph(doc, "Rate limits")}`,
    `- ${paragraph(doc, "Idempotency")}`,
    "- Request bodies are at most 1 MiB (413 `payload_too_large`), headers at most 16 KB.",
    "",
    "## Errors and back-off",
    "",
    paragraph(doc, "Errors"),
    "",
    "- 429 `rate_limited`: wait the `Retry-After` seconds, then retry; keep under `RateLimit-Remaining`.",
    "- 503 `unavailable`, 500, a timeout or a dropped connection: retry with exponential back-off and jitter (1 s,",
    "  2 s, 4 s … up to 5 minutes), sending the same `Idempotency-Key` on a create so nothing happens twice.",
    "- 409 `conflict` with an `Idempotency-Key` still being processed: retry shortly with the same key.",
    "- 400, 401, 403, 404, 409 (other), 422: do not retry unchanged; read `message` (and `details`), fix the request.",
    "",
    "## Endpoints",
    "",
    ...tags.flatMap((tag) => {
      const mine = ops.filter((o) => (o.op.tags ?? [])[0] === tag.name)
      return mine.length === 0
        ? []
        : [
          `### ${tag.name}`,
          "",
          String(tag.description ?? "").replace(/\n/g, " "),
          "",
          ...mine.map((o) => operationSection(doc, o))
        ]
    })
  ].join("\n")
}
