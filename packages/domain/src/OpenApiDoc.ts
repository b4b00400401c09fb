/**
 * Post-processing of the generated OpenAPI document: our 400 (`invalid_request`) replaces HttpApi's built-in
 * decode error everywhere, and the key schemes are declared on every operation that can answer 401 (the
 * authentication middleware reads both headers itself, so HttpApi does not know about them).
 */
import { addEventWebhooks } from "./EventWebhooks.js"

type Json = Record<string, any>

const dropDecodeError = (node: unknown): unknown => {
  if (Array.isArray(node)) {
    return node
      .filter((n) => !(n && typeof n === "object" && n.$ref === "#/components/schemas/HttpApiDecodeError"))
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

export const openApiTransform = (spec: Json): Json => {
  const doc = dropDecodeError(spec) as Json
  if (doc.components?.schemas) delete doc.components.schemas.HttpApiDecodeError
  doc.components = {
    ...doc.components,
    securitySchemes: {
      ...doc.components?.securitySchemes,
      bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer sk_…" },
      apiKey: { type: "apiKey", in: "header", name: "X-API-Key" }
    }
  }
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      if (op && typeof op === "object" && op.responses?.["401"]) op.security = [{ bearer: [] }, { apiKey: [] }]
    }
  }
  return addEventWebhooks(doc)
}
