import { OpenApi } from "@effect/platform"
import { expect } from "@effect/vitest"
import { EventCatalog, ShoalApi, Wallet } from "@shoal/domain"
import { Effect } from "effect"
import { withSamples } from "../../src/Onboarding/ExampleCalls.js"
import { operationsOf, renderSkill, successOf } from "../../src/Onboarding/SkillDoc.js"
import { TOOLS } from "../Mcp/support.js"
import { rawRequest } from "../support/Raw.js"
import { describeWallet, walletRaw } from "../Wallet/support.js"
import { exampleCalls, operationOf, runCall, setUp } from "./examples.js"

/** Operations of /openapi.json skill.md leaves out on purpose (none today: owner-only ones are listed as such). */
const EXCLUDED = new Set<string>([])

/** Operations without a worked example, each with why it cannot run in order on a fresh server in a short test. */
const WITHOUT_EXAMPLE: Readonly<Record<string, string>> = {}

// values a documented answer must match literally; the rest must only have the documented type
const LITERAL = new Set(["status", "user_type", "visibility", "is_missed", "created", "source"])

/** Where a real answer differs from the documented one: a missing field, another type, another literal. */
const shapeErrors = (doc: unknown, real: any, at = "$"): Array<string> => {
  if (doc === null) return []
  if (Array.isArray(doc)) {
    if (!Array.isArray(real)) return [`${at}: not an array`]
    return doc.length > 0 && real.length > 0 ? shapeErrors(doc[0], real[0], `${at}[0]`) : []
  }
  if (typeof doc === "object") {
    if (typeof real !== "object" || real === null || Array.isArray(real)) return [`${at}: not an object`]
    return Object.entries(doc).flatMap(([k, v]) =>
      k in real ? shapeErrors(v, real[k], `${at}.${k}`) : [`${at}.${k}: missing`]
    )
  }
  if (typeof doc !== typeof real) return [`${at}: ${JSON.stringify(real)}, documented ${JSON.stringify(doc)}`]
  const key = at.split(".").pop()!
  return LITERAL.has(key) && doc !== real ? [`${at}: ${JSON.stringify(real)}, documented ${JSON.stringify(doc)}`] : []
}

describeWallet()("GET /skill.md", (it) => {
  it.effect("is Markdown for an agent, without a key, covering every operation of both APIs, event and tool", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("GET", "/skill.md", { headers: { host: "shoal.example:8080" } })
      expect(res.status).toBe(200)
      expect(res.headers["content-type"]).toBe("text/markdown; charset=utf-8")
      const md = res.text
      const doc = (yield* rawRequest("GET", "/openapi.json")).body
      const wallet = (yield* walletRaw("GET", "/openapi.json")).body
      expect(doc.info.description).toContain("GET /skill.md")
      const ops = operationsOf(doc)
      expect(ops.length).toBeGreaterThan(80)
      for (const { method, op, path } of [...ops, ...operationsOf(wallet)]) {
        if (EXCLUDED.has(op.operationId)) continue
        const route = `${method.toUpperCase()} ${path}`
        expect(md.includes(`#### ${route}\n`) || md.includes(`- \`${route}\` (`), route).toBe(true)
        expect(md).toContain(`(\`${op.operationId}\`)`)
      }
      // every event of the catalog with each of its fields, under its own heading
      for (const member of EventCatalog.Event.members) {
        const type = member.fields.type.literals[0]
        const section = md.split(`#### \`${type}\`\n`)[1]?.split("\n#### ")[0]
        expect(section, type).toBeDefined()
        for (const field of Object.keys(member.fields.data.fields)) expect(section, type).toContain(`- \`${field}\` (`)
      }
      for (const tool of TOOLS) expect(md).toContain(`- \`${tool}\`: `)
      for (
        const section of [
          "## Connect",
          "## The hourly Wave and the heartbeat",
          "## Events",
          "### Event types",
          "## Limits",
          "## Errors and back-off",
          "## Endpoints of the agent API",
          "## The wallet API (Gems)"
        ]
      ) expect(md).toContain(`\n${section}\n`)
      // the WebSocket, its frames, resume, the frame limit, polling and webhook signatures
      for (
        const fact of [
          "/api/agent/ws",
          `{"type":"auth","api_key":"…"}`,
          `{"type":"event","cursor":…,"event":{…envelope}}`,
          `{"type":"ack","cursor":…}`,
          `{"type":"pong"}`,
          "?after=<cursor>",
          "4429",
          "`next_cursor`",
          "`webhook-signature`"
        ]
      ) expect(md).toContain(fact)
      // examples address the host the guide was read from, the wallet its port on that host
      expect(md).not.toContain("{base_url}")
      expect(md).not.toContain("{wallet_url}")
      expect(md).toContain(`curl -X GET "http://shoal.example:8080/api/agent/me" -H "Authorization: Bearer $SHOAL_KEY"`)
      expect(md).toContain(`curl -X GET "http://shoal.example:8081/api/gems/balance"`)
      expect(md).toContain(`"url": "http://shoal.example:8080/mcp"`)
    }))

  it.effect("tells the truth: the heartbeat's answer, wave ids, the wave-complete body", () =>
    Effect.gen(function*() {
      const md = (yield* rawRequest("GET", "/skill.md")).text
      expect(md).toContain("It answers `last_heartbeat_at`, `connected`, `server_time`")
      expect(md).not.toContain("what to do next")
      expect(md).not.toContain("empty object")
      expect(md).toContain("`2026112714ada_bot`")
      expect(md).not.toMatch(/"wave_id":"[0-9a-f]{8}-/)
      const complete = md.split("#### POST /api/agent/wave/complete\n")[1]!.split("\n#### ")[0]!
      for (const field of ["wave_id", "task_status", "comment", "notify_owner"]) {
        expect(complete).toContain(`- \`${field}\` (`)
      }
    }))

  it.effect(
    "every example call of skill.md runs against a fresh server and answers as documented",
    () =>
      Effect.gen(function*() {
        const md = (yield* rawRequest("GET", "/skill.md")).text
        const { vars } = yield* setUp
        for (const call of exampleCalls) {
          const { method, op, path } = operationOf(call)
          const route = `${method.toUpperCase()} ${path}`
          const section = md.split(`#### ${route}\n`)[1]?.split("\n#### ")[0]
          if (exampleCalls.find((c) => c.operationId === call.operationId) !== call) {
            // a second call of an operation, to set up a later one: the guide shows the first
          } else if (section === undefined) {
            // an alias of a documented route, or a relay route: listed in one line, without an example
            expect(md, call.operationId).toContain(`- \`${route}\` (`)
          } else {
            if (call.body !== undefined) expect(section).toContain(`--json '${withSamples(JSON.stringify(call.body))}'`)
            expect(section).toContain(withSamples(JSON.stringify(call.answer)))
          }
          const res = yield* runCall(call, vars)
          expect(res.status, `${call.operationId}: ${JSON.stringify(res.body)}`).toBe(Number(successOf(op).status))
          expect(shapeErrors(call.answer, res.body), call.operationId).toEqual([])
        }
      }),
    60_000
  )

  it("every operation of both APIs has a worked example the test runs, but the listed exceptions", () => {
    const ops = [
      ...operationsOf(OpenApi.fromApi(ShoalApi) as any),
      ...operationsOf(OpenApi.fromApi(Wallet.WalletApi) as any)
    ].map((o) => o.op.operationId as string)
    const covered = new Set(exampleCalls.map((c) => c.operationId))
    expect(ops.filter((id) => !covered.has(id))).toEqual(Object.keys(WITHOUT_EXAMPLE))
  })

  it.effect("cannot drift: prose naming an operation the API no longer has fails the rendering", () =>
    Effect.sync(() => {
      const doc = OpenApi.fromApi(ShoalApi) as any
      const wallet = OpenApi.fromApi(Wallet.WalletApi) as any
      expect(renderSkill(doc, wallet, []).length).toBeGreaterThan(10_000)
      const paths = { ...doc.paths }
      delete paths["/api/agent/heartbeat"]
      expect(() => renderSkill({ ...doc, paths }, wallet, [])).toThrow(/waves\.heartbeat/)
    }))
})
