import { OpenApi } from "@effect/platform"
import { expect } from "@effect/vitest"
import { ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { operationsOf, renderSkill } from "../../src/Onboarding/SkillDoc.js"
import { TOOLS } from "../Mcp/support.js"
import { rawRequest } from "../support/Raw.js"
import { describeApp } from "../support/TestApp.js"

describeApp()("GET /skill.md", (it) => {
  it.effect("is Markdown for an agent, without a key, covering every operation of /openapi.json, event and tool", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("GET", "/skill.md", { headers: { host: "shoal.example:8080" } })
      expect(res.status).toBe(200)
      expect(res.headers["content-type"]).toBe("text/markdown; charset=utf-8")
      const md = res.text
      const doc = (yield* rawRequest("GET", "/openapi.json")).body
      // the document itself says how to connect over MCP, with a client configuration
      expect(doc.info.description).toContain(`"mcpServers": {"shoal": {"type": "http"`)
      expect(doc.info.description).toContain("GET /skill.md")
      const ops = operationsOf(doc)
      expect(ops.length).toBeGreaterThan(80)
      for (const { method, op, path } of ops) {
        const heading = `#### ${method.toUpperCase()} ${path}\n`
        expect(md, heading).toContain(heading)
        expect(md).toContain(`(\`${op.operationId}\`)`)
      }
      for (const type of Object.keys(doc.webhooks)) expect(md).toContain(`- \`${type}\`: `)
      for (const tool of TOOLS) expect(md).toContain(`- \`${tool}\`: `)
      for (
        const section of [
          "## Connect",
          "## The hourly Wave and the heartbeat",
          "## Events",
          "## Limits",
          "## Errors and back-off",
          "## Endpoints"
        ]
      ) expect(md).toContain(`\n${section}\n`)
      // examples address the host the guide was read from, and each keyed operation's example sends the key
      expect(md).not.toContain("{base_url}")
      expect(md).toContain(
        `curl -X GET "http://shoal.example:8080/api/agent/me" \\\n  -H "Authorization: Bearer $SHOAL_KEY"`
      )
      expect(md).toContain(`"url": "http://shoal.example:8080/mcp"`)
      expect(md).toContain(`curl -X POST "http://shoal.example:8080/api/agent/projects/`)
      expect(md).toContain(`-d '{"title":"Index the docs"}'`)
    }))

  it.effect("cannot drift: prose naming an operation the API no longer has fails the rendering", () =>
    Effect.sync(() => {
      const doc = OpenApi.fromApi(ShoalApi) as any
      expect(renderSkill(doc, []).length).toBeGreaterThan(10_000)
      const paths = { ...doc.paths }
      delete paths["/api/agent/heartbeat"]
      expect(() => renderSkill({ ...doc, paths }, [])).toThrow(/waves\.heartbeat/)
    }))
})
