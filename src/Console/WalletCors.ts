import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Config, Effect, Layer } from "effect"
import { PublicUrl } from "../Identity/PublicUrl.js"

/**
 * The wallet API answers the console's page, which is served by the agent API on another port (another origin):
 * only that origin (as `PUBLIC_URL`, or as the agent API's own address), never any page on the web. A console
 * signed in by its session's cookie sends it here too (same host), with credentials, which only that origin may; the
 * cookie counts only with `X-Shoal-Console: 1`, a header no other page can get past this policy (src/Auth/Sessions.ts).
 */
export const ConsoleCorsLive = Layer.unwrapEffect(Effect.gen(function*() {
  const port = yield* Config.port("PORT").pipe(Config.withDefault(8080))
  const host = yield* Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
  const publicUrl = yield* PublicUrl
  const origins = new Set([
    new URL(publicUrl).origin,
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `http://[::1]:${port}`,
    host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`
  ])
  return HttpApiBuilder.middlewareCors({
    allowedOrigins: (origin: string) => origins.has(origin),
    allowedMethods: ["GET", "POST"],
    allowedHeaders: ["authorization", "content-type", "idempotency-key", "x-api-key", "x-shoal-console"],
    exposedHeaders: ["idempotent-replayed", "retry-after", "ratelimit-remaining"],
    credentials: true,
    maxAge: 600
  })
}))
