/**
 * The event catalog in /openapi.json, as OpenAPI 3.1 `webhooks`: one entry per event type, a POST whose body is
 * that event's envelope, signed per Standard Webhooks. The same envelopes arrive over WebSocket and polling.
 */
import * as OpenApiJsonSchema from "@effect/platform/OpenApiJsonSchema"
import { Option, type Schema, SchemaAST } from "effect"
import * as EventCatalog from "./EventCatalog.js"

type Json = Record<string, any>

const header = (name: string, description: string, schema: Json = { type: "string" }) => ({
  name,
  in: "header",
  required: true,
  description,
  schema
})

const headers = (type: string) => [
  header("X-Service-Event", "The event type, as in the body's `type`.", { type: "string", const: type }),
  header(
    "webhook-id",
    "The event's id (`evt_…`); the same on every retry of this event, so a receiver can drop duplicates."
  ),
  header("webhook-timestamp", "When this attempt was signed, in seconds since the Unix epoch.", {
    type: "string",
    pattern: "^[0-9]+$"
  }),
  header(
    "webhook-signature",
    "Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, keyed with the secret " +
      "from POST /api/account/webhook-secret (`whsec_` + base64 key)."
  )
]

/** Adds `webhooks` and the envelopes' schemas to a generated document; a name already taken by another schema throws. */
export const addEventWebhooks = (doc: Json): Json => {
  const defs: Record<string, Json> = {}
  const webhooks: Record<string, Json> = {}
  for (const member of EventCatalog.Event.members) {
    const type = member.fields.type.literals[0]
    const description = Option.getOrElse(SchemaAST.getDescriptionAnnotation(member.ast), () => type)
    webhooks[type] = {
      post: {
        operationId: `event_${type.replace(/\./g, "_")}`,
        summary: type,
        description: `${description} Also delivered over GET /api/agent/ws and GET /api/agent/events.`,
        parameters: headers(type),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: OpenApiJsonSchema.makeWithDefs(member as Schema.Schema.AnyNoContext, {
                defs,
                defsPath: "#/components/schemas/"
              })
            }
          }
        },
        responses: {
          "200": {
            description: "Received. Any 2xx will do; anything else, or no answer within 10 s, is retried with " +
              "backoff (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then the delivery is marked failed."
          }
        }
      }
    }
  }
  const schemas: Json = { ...doc.components?.schemas }
  for (const [name, schema] of Object.entries(defs)) {
    if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(schema)) {
      throw new Error(`OpenAPI: two different schemas are named ${name}`)
    }
    schemas[name] = schema
  }
  return { ...doc, components: { ...doc.components, schemas }, webhooks: { ...doc.webhooks, ...webhooks } }
}
