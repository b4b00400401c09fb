import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Config, Effect } from "effect"
import { hostnameOf } from "../Auth/Sessions.js"
import { compress, IMMUTABLE, respond as compressed } from "../Http/Compressed.js"
import { loadAssets } from "./Assets.js"

const NOT_BUILT = "The console is not built: run `npm install` (or `node scripts/build-console.mjs`) and restart."

/**
 * The page may talk only to this server and its wallet: the browser refuses anything else, so nothing the console
 * loads or calls leaves the service (no CDN, no analytics), whatever a dependency might try.
 */
const policy = (host: string | undefined, walletPort: number) => {
  const self = host !== undefined && /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(host) ? host : "localhost"
  // the wallet is on the host the browser reached us by, on its own port
  const wallet = `${hostnameOf(self)}:${walletPort}`
  return [
    "default-src 'self'",
    `connect-src 'self' ws://${self} wss://${self} http://${wallet} https://${wallet}`,
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'"
  ].join("; ")
}

/**
 * `GET /` and `/console/...`: the humans' web page, a static bundle over the public API (no endpoint of its own).
 * A path naming a built file gets it; any other path under `/console/` is a page of the app, so it gets the HTML.
 */
export const ConsoleLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const walletPort = yield* Config.port("WALLET_PORT").pipe(Config.withDefault(8081))
    const assets = loadAssets()
    // each file encoded once, at start; the page names each bundle by its content hash, so a browser may keep a
    // bundle for good and still gets the next build at once (the page itself is always revalidated)
    const encoded = new Map([...assets].map(([name, asset]) => [name, compress(asset.body)] as const))
    const index = assets.get("index.html")
    const html = index === undefined ? undefined : compress(
      [...encoded].reduce(
        (page, [name, body]) =>
          name === "index.html" ? page : page.replaceAll(`"/console/${name}"`, `"/console/${name}?v=${body.hash}"`),
        new TextDecoder().decode(index.body).replace("%WALLET_PORT%", String(walletPort))
      )
    )

    const page = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const url = new URL(request.url, "http://x")
      const name = url.pathname.replace(/^\/console\/?/, "")
      const asset = name.includes("/") || name === "index.html" ? undefined : assets.get(name)
      // a file name that is not one of ours is missing, not a page: a stale tab asking for an old bundle learns so
      if (asset === undefined && name.includes(".")) return HttpServerResponse.text("not found", { status: 404 })
      const headers = {
        "x-content-type-options": "nosniff",
        "content-security-policy": policy(request.headers["host"], walletPort),
        "referrer-policy": "no-referrer"
      }
      const body = encoded.get(name)
      if (asset !== undefined && body !== undefined) {
        const cacheControl = url.searchParams.get("v") === body.hash ? IMMUTABLE : "no-cache"
        return compressed(request, body, { contentType: asset.contentType, cacheControl, headers })
      }
      if (html === undefined) return HttpServerResponse.text(NOT_BUILT, { status: 503 })
      return compressed(request, html, { contentType: "text/html; charset=utf-8", cacheControl: "no-cache", headers })
    })
    yield* router.get("/", page)
    yield* router.get("/console", page)
    yield* router.get("/console/*", page)
  })
)
