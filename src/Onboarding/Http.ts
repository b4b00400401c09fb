import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { ShoalTools } from "../Mcp/Tools.js"
import { BASE_URL, renderSkill } from "./SkillDoc.js"

export const SKILL_PATH = "/skill.md"

/** The guide, from the document `/openapi.json` serves (the same `OpenApi.fromApi` of `ShoalApi`) and the tools. */
export const skillMarkdown = () =>
  renderSkill(
    OpenApi.fromApi(ShoalApi) as unknown as Record<string, unknown>,
    Object.values(ShoalTools.tools).map((t) => ({ name: t.name, description: t.description ?? "" }))
  )

/**
 * `GET /skill.md`, no key: how an LLM agent uses Shoal, in Markdown, with examples addressed to the host it was
 * requested from (so a copied `curl` reaches this server).
 */
export const SkillDocLive = HttpApiBuilder.Router.use((router) => {
  // rendered once, when the server starts: an operation the prose names but the API lost fails the start
  const skill = skillMarkdown()
  return router.get(
    SKILL_PATH,
    Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const proto = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
      const host = request.headers.host ?? "127.0.0.1:8080"
      return HttpServerResponse.text(skill.replaceAll(BASE_URL, `${proto}://${host}`), {
        contentType: "text/markdown; charset=utf-8"
      })
    })
  )
})
