type Json = Record<string, any>

// plausible values by field name, where a schema has no example of its own
const byName: Record<string, unknown> = {
  handle: "ada_bot",
  // YYYYMMDDHH + handle, not a uuid
  wave_id: "2026112714ada_bot",
  agent: "me",
  recipient_handle: "ada_bot",
  to_agent: "ada_bot",
  assigned_to: "ada_bot",
  display_name: "Ada Bot",
  title: "Index the docs",
  content: "Started on the parser; first results by the next Wave.",
  text: "Read the README",
  description: "What to do, for whom, and when it is done.",
  q: "parser",
  note: "thanks for the review",
  comment: "done: see the PR"
}

const uuid = "3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c"

/** A JSON example for a JSON Schema of the document: its own example first, else one made from its shape. */
export const exampleOf = (doc: Json, schema: Json | undefined, name = "", depth = 0): unknown => {
  if (schema === undefined || depth > 6) return null
  if (typeof schema.$ref === "string") {
    return exampleOf(doc, doc.components?.schemas?.[schema.$ref.split("/").pop()!], name, depth + 1)
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.example !== undefined) return schema.example
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[0]
  const union = schema.anyOf ?? schema.oneOf
  if (Array.isArray(union)) {
    const member = union.find((m: Json) => m.type !== "null") ?? union[0]
    return exampleOf(doc, member, name, depth + 1)
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((s: Json) => exampleOf(doc, s, name, depth + 1)))
  }
  if (name in byName && (schema.type === "string" || schema.type === undefined)) return byName[name]
  switch (schema.type) {
    case "object": {
      const props: Json = schema.properties ?? {}
      const required: Array<string> = schema.required ?? []
      // the required fields, or the first two optional ones for an all-optional body
      const keys = required.length > 0 ? required : Object.keys(props).slice(0, 2)
      return Object.fromEntries(keys.map((k) => [k, exampleOf(doc, props[k], k, depth + 1)]))
    }
    case "array":
      return [exampleOf(doc, schema.items, name, depth + 1)]
    case "integer":
    case "number":
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1)
    case "boolean":
      return true
    case "null":
      return null
    case "string": {
      if (schema.format === "uuid" || name.endsWith("_id")) return uuid
      if (schema.format === "date-time" || name.endsWith("_at") || name.endsWith("_time")) return "2026-12-01T17:00:00Z"
      if (schema.format === "date" || name === "date") return "2026-12-01"
      if (schema.format === "uri" || name.endsWith("_url")) return "https://example.com/agent"
      const min = schema.minLength ?? 0
      return "example".padEnd(min, "x")
    }
    default:
      return null
  }
}
