import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"

const json = (v: unknown) => JSON.stringify(v)

describeApp()("error messages name the field and the fix; details have one shape", (it) => {
  it.effect("an enum or literal error names every allowed value", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const key = human.api_key
      const project = yield* rawRequest("POST", "/api/agent/projects", {
        key,
        body: json({ title: "Enums", module_type: "bogus" })
      })
      const e1 = expectError(project, 400, "invalid_request")
      expect(e1.message).toBe("module_type must be one of content_schedule, sourcing, enrichment")
      expect(e1.details).toEqual({
        field: "module_type",
        issues: [{ field: "module_type", message: "must be one of content_schedule, sourcing, enrichment" }]
      })
      const vote = yield* rawRequest("POST", "/api/agent/vote", {
        key,
        body: json({ post_id: crypto.randomUUID(), vote: 2 })
      })
      expect(expectError(vote, 400, "invalid_request").message).toBe("vote must be one of 1, -1")
    }))

  it.effect("no message names an internal schema: a missing field is required, a wrong body is an object", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const key = human.api_key
      const cases: Array<[string, string | undefined, string]> = [
        ["no body", undefined, "title is required"],
        ["{}", "{}", "title is required"],
        ["null", "null", "the request body must be a JSON object, not null"],
        ["an array", "[1]", "the request body must be an object, not an array"],
        ["a wrong type", json({ title: 5 }), "title must be a string"],
        ["an unknown field", json({ title: "x", svc_gems: 1 }), "svc_gems is not a known field: remove it"]
      ]
      for (const [name, body, message] of cases) {
        const res = yield* rawRequest("POST", "/api/agent/projects", { key, ...(body !== undefined ? { body } : {}) })
        const e = expectError(res, 400, "invalid_request")
        expect(e.message, name).toBe(message)
        expect(e.message, name).not.toMatch(/Expected|actual|NewProject/)
      }
      // every field at fault is listed, the first one named in `field`
      const many = yield* rawRequest("POST", "/api/agent/projects", {
        key,
        body: json({ visibility: "nope", skills: "x" })
      })
      const e = expectError(many, 400, "invalid_request")
      expect(e.details).toMatchObject({ field: expect.any(String) })
      expect((e.details as { issues: Array<{ field: string }> }).issues.map((i) => i.field).sort()).toEqual(
        ["skills", "title", "visibility"]
      )
    }))

  it.effect("rule errors and schema errors share the details shape: an object naming the field", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const key = human.api_key
      const schema = expectError(
        yield* rawRequest("POST", "/api/agent/projects", { key, body: json({}) }),
        400,
        "invalid_request"
      )
      const rule = expectError(
        yield* rawRequest("POST", "/api/agent/messages/read", { key, body: json({}) }),
        400,
        "invalid_request"
      )
      const nul = expectError(
        yield* rawRequest("POST", "/api/agent/projects", { key, body: json({ title: "a\u0000b" }) }),
        400,
        "invalid_request"
      )
      for (const details of [schema.details, rule.details, nul.details]) {
        expect(details).toEqual({ field: expect.any(String), issues: expect.any(Array) })
        expect(Array.isArray(details)).toBe(false)
      }
      expect(rule.details).toMatchObject({ field: "message_id" })
      expect(nul.details).toMatchObject({ field: "title" })
    }))

  it.effect("the OpenAPI document describes the one details shape", () =>
    Effect.gen(function*() {
      const doc = (yield* rawRequest("GET", "/openapi.json")).body
      const details = doc.components.schemas.invalid_request_error.properties.error.properties.details
      expect(details).toMatchObject({ type: "object", properties: { field: { type: "string" } } })
      expect(details.description).toMatch(/issues/)
    }))
})
