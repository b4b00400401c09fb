import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { rawRequest } from "../support/Raw.js"
import { signUp } from "../support/TestApp.js"
import { describeWallet, walletRaw } from "../Wallet/support.js"

type Json = Record<string, any>

const fake = "00000000-0000-4000-8000-000000000000"

/** The operations of a served OpenAPI document whose request body requires no property. */
const allOptional = (doc: Json) => {
  const resolve = (s: Json | undefined): Json | undefined =>
    s?.$ref ? resolve(doc.components.schemas[decodeURIComponent(s.$ref.split("/").pop())]) : s
  const found: Array<{ method: string; path: string; required: boolean | undefined }> = []
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const body = op?.requestBody
      if (body === undefined) continue
      const schema = resolve(body.content?.["application/json"]?.schema)
      if ((schema?.required ?? []).length === 0) {
        found.push({ method: method.toUpperCase(), path, required: body.required })
      }
    }
  }
  return found
}

// A 400 an empty body may still earn: a rule over the fields, not their decoding (mark read needs an id or `all`)
const ruleErrors = /or all: true/

describeWallet()("empty bodies (CONTRACT \"Request conventions\")", (it) => {
  it.effect("every operation whose fields are all optional takes an empty body with no Content-Type", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const project = yield* human.client.projects.createProject({ payload: { title: "Empty bodies" }, headers: {} })
      const task = (yield* human.client.tasks.createTask({
        path: { project_id: project.project.id },
        // its assignee completes it (CONTRACT "Who may do what")
        payload: { title: "Complete me", assigned_to: "me" },
        headers: {}
      })).task
      const ids: Record<string, string> = { project_id: project.project.id, task_id: task.id }
      const agentDoc = (yield* rawRequest("GET", "/openapi.json")).body as Json
      const walletDoc = (yield* walletRaw("GET", "/openapi.json")).body as Json
      const agentOps = allOptional(agentDoc)
      const walletOps = allOptional(walletDoc)
      // the four the issue found, among others
      expect(agentOps.map((o) => o.path)).toEqual(expect.arrayContaining([
        "/api/agent/tasks/{task_id}/complete",
        "/api/agent/tasks/{task_id}/approve",
        "/api/agent/tasks/{task_id}/reject",
        "/api/gigs/{task_id}/apply",
        "/api/agent/heartbeat"
      ]))
      const answers: Array<string> = []
      for (const [ops, send] of [[agentOps, "agent"], [walletOps, "wallet"]] as const) {
        for (const op of ops) {
          // documented as a body a client may leave out
          expect(op.required, `${op.method} ${op.path}`).toBe(false)
          const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? fake)
          const res = send === "agent"
            ? yield* rawRequest(op.method as "POST", path, { key: human.api_key })
            : yield* walletRaw(op.method as "POST", path, { key: human.api_key })
          const error = (res.body as Json | undefined)?.error
          answers.push(`${op.method} ${op.path} → ${res.status} ${error?.message ?? ""}`)
          expect(res.status, answers.at(-1)).toBeLessThan(500)
          if (res.status === 400) expect(error?.message, answers.at(-1)).toMatch(ruleErrors)
        }
      }
      // the real task was completed by its empty body
      const done = yield* human.client.tasks.getTask({ path: { task_id: task.id } })
      expect(done.task.status).toBe("completed")
    }))

  it.effect("`{}` and `null` are the empty body too; a body with required fields names them", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const project = yield* human.client.projects.createProject({ payload: { title: "Bodies" }, headers: {} })
      for (const body of ["{}", "null"]) {
        const task = (yield* human.client.tasks.createTask({
          path: { project_id: project.project.id },
          payload: { title: "Complete me", assigned_to: "me" },
          headers: {}
        })).task
        const res = yield* rawRequest("POST", `/api/agent/tasks/${task.id}/complete`, { key: human.api_key, body })
        expect(res.status, body).toBe(200)
      }
      const none = yield* rawRequest("POST", "/api/agent/projects", { key: human.api_key })
      expect(none.status).toBe(400)
      expect(none.body.error.message).toBe("title is required")
      expect(none.body.error.details).toEqual({ field: "title", issues: [{ field: "title", message: "is required" }] })
    }))
})
