import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { makeKeyCheck } from "../Auth.js"
import { rateLimitHeaders } from "../Auth/RateLimiter.js"
import { type Lane, plainJsonBody } from "../Http/FastLane.js"
import { McpDirect } from "./Direct.js"
import { MCP_PATH } from "./Http.js"

/**
 * MCP's fast lane (src/Http/FastLane.ts): `POST /mcp` holding one `tools/call` of a registered tool, a JSON body the
 * request checks would pass as it is (declared, within the size limit, not too deep, no NUL) and a known key within
 * its limit, is answered ahead of the router by the route's own direct path (`McpDirect`: the same parse, the same
 * registered handler as the key's principal, the same JSON-RPC answer) with the rate-limit headers. Anything else
 * (no key, a key past its limit, another method, a batch, a body the checks refuse …) goes down the general path,
 * which finds the body already read (`readBody` keeps it per request) and decides everything itself.
 */
export const McpLane = Effect.gen(function*() {
  const direct = yield* McpDirect
  const check = yield* makeKeyCheck
  const lane: Lane = {
    method: "POST",
    path: MCP_PATH,
    answer: (request) => {
      return Effect.flatMap(plainJsonBody(request), (text) => {
        if (text === undefined) return Effect.succeed(undefined)
        const call = direct.parse(text)
        if (call === undefined) return Effect.succeed(undefined)
        return Effect.flatMap(check(request.headers), (checked) =>
          checked._tag === "Allowed"
            ? Effect.map(
              direct.answer(checked.principal, call),
              (response) => HttpServerResponse.setHeaders(response, rateLimitHeaders(checked.decision))
            )
            : Effect.succeed(undefined))
      })
    }
  }
  return lane
})
