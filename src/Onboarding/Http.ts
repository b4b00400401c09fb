import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as OpenApi from "@effect/platform/OpenApi"
import { ShoalApi, Wallet } from "@shoal/domain"
import { Cache, Config, Duration, Effect } from "effect"
import { compress, respond } from "../Http/Compressed.js"
import { ShoalTools } from "../Mcp/Tools.js"
import { BASE_URL, renderSkill, WALLET_URL } from "./SkillDoc.js"

/**
 * `GET /skill.md`, no key: how an LLM agent uses Shoal, in Markdown, with examples addressed to the host it was
 * requested from (so a copied `curl` reaches this server) and the wallet on its port of that host.
 */
export const SkillDocLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const walletPort = yield* Config.integer("WALLET_PORT").pipe(Config.withDefault(8081), Effect.orDie)
    // rendered once, when the server starts, from the documents `/openapi.json` serves, the catalog and the tools:
    // an operation the prose names but the API lost fails the start
    const skill = renderSkill(
      OpenApi.fromApi(ShoalApi),
      OpenApi.fromApi(Wallet.WalletApi),
      Object.values(ShoalTools.tools).map((t) => ({ name: t.name, description: t.description ?? "" }))
    )
    // encoded once per base URL a client names (a server has one or a few); a flood of made-up hosts evicts the
    // least recently used
    const byBase = yield* Cache.make({
      capacity: 32,
      timeToLive: Duration.infinity,
      lookup: (base: string) =>
        Effect.sync(() =>
          compress(
            skill.replaceAll(BASE_URL, base).replaceAll(WALLET_URL, `${base.replace(/:\d+$/, "")}:${walletPort}`)
          )
        )
    })
    yield* router.get(
      "/skill.md",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const proto = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
        const body = yield* byBase.get(`${proto}://${request.headers.host ?? "127.0.0.1:8080"}`)
        return respond(request, body, { contentType: "text/markdown; charset=utf-8", cacheControl: "no-cache" })
      })
    )
  })
)
