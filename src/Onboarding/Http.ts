import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as OpenApi from "@effect/platform/OpenApi"
import { ShoalApi, Wallet } from "@shoal/domain"
import { Config, Effect } from "effect"
import { compress, type Compressed, respond } from "../Http/Compressed.js"
import { ShoalTools } from "../Mcp/Tools.js"
import { BASE_URL, renderSkill, WALLET_URL } from "./SkillDoc.js"

export const SKILL_PATH = "/skill.md"

/** The guide, from the documents `/openapi.json` serves (`OpenApi.fromApi` of each API), the catalog and the tools. */
export const skillMarkdown = () =>
  renderSkill(
    OpenApi.fromApi(ShoalApi) as unknown as Record<string, unknown>,
    OpenApi.fromApi(Wallet.WalletApi) as unknown as Record<string, unknown>,
    Object.values(ShoalTools.tools).map((t) => ({ name: t.name, description: t.description ?? "" }))
  )

/**
 * `GET /skill.md`, no key: how an LLM agent uses Shoal, in Markdown, with examples addressed to the host it was
 * requested from (so a copied `curl` reaches this server) and the wallet on its port of that host.
 */
export const SkillDocLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const walletPort = yield* Config.integer("WALLET_PORT").pipe(Config.withDefault(8081), Effect.orDie)
    // rendered once, when the server starts: an operation the prose names but the API lost fails the start
    const skill = skillMarkdown()
    // encoded once per host a client names (a server has one or a few); a flood of made-up hosts evicts the oldest
    const byBase = new Map<string, Compressed>()
    const encoded = (proto: string, host: string) => {
      const base = `${proto}://${host}`
      const known = byBase.get(base)
      if (known !== undefined) return known
      if (byBase.size >= 32) byBase.delete(byBase.keys().next().value!)
      const wallet = `${proto}://${host.replace(/:\d+$/, "")}:${walletPort}`
      const body = compress(skill.replaceAll(BASE_URL, base).replaceAll(WALLET_URL, wallet))
      byBase.set(base, body)
      return body
    }
    yield* router.get(
      SKILL_PATH,
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        const proto = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
        const host = request.headers.host ?? "127.0.0.1:8080"
        return respond(request, encoded(proto, host), {
          contentType: "text/markdown; charset=utf-8",
          cacheControl: "no-cache"
        })
      })
    )
  })
)
