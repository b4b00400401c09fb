import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Auth } from "@shoal/domain"
import { Effect, Exit, Runtime } from "effect"
import { makeKeyCheck, makeKeyCheckNow } from "../Auth.js"
import { rateLimitHeaders } from "../Auth/RateLimiter.js"
import { DRAIN_BYTES, MAX_BODY_BYTES, MAX_JSON_DEPTH, nestedDeeperThan } from "../Http/ErrorHandling.js"
import { type Lane, plainJsonBody } from "../Http/FastLane.js"
import { type NodeLane, writeJson, writeJsonText } from "../Http/FrontDoor.js"
import { declaresBody, isJsonMediaType, keepBody, nulFieldsInJson, readNodeBody } from "../Http/RequestChecks.js"
import { McpDirect } from "./Direct.js"
import { MCP_PATH } from "./Http.js"
import { WhoamiNow } from "./Tools/Me.js"

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

/**
 * MCP's lane at the front door (src/Http/FrontDoor.ts), ahead of its fast lane: the same plain case (one `tools/call`
 * of a registered tool, a JSON body the request checks pass unchanged, a key whose principal is cached, within its
 * limit), its body read from Node's request and the registered handler run as the key's principal (`McpDirect`, as
 * the fast lane does) without Effect's per-request HTTP machinery, the answer written on Node's response. Anything
 * else is handed on, before anything is taken, with the body kept for the general path (`keepBody`), which
 * decides it as before.
 */
export const McpFrontLane = Effect.gen(function*() {
  const direct = yield* McpDirect
  const check = yield* makeKeyCheckNow
  const clock = yield* Effect.clock
  const run = Runtime.runCallback(yield* Effect.runtime<never>())
  // tools answered from memory when they can be, without arguments (the handler's answer otherwise)
  const fromMemory = new Map<string, (principal: Auth.Principal) => (() => string) | undefined>([
    ["whoami", yield* WhoamiNow]
  ])
  const lane: NodeLane = {
    method: "POST",
    path: MCP_PATH,
    answer: (request, response, next) => {
      const headers = request.headers as Record<string, string | undefined>
      const type = headers["content-type"]
      const length = headers["content-length"]
      if (
        type === undefined || !isJsonMediaType(type) || !type.toLowerCase().includes("application/json") ||
        !declaresBody(headers) || (length !== undefined && Number(length) > MAX_BODY_BYTES)
      ) {
        return false
      }
      readNodeBody(request, MAX_BODY_BYTES, DRAIN_BYTES, (body) => {
        // past the door's own try: a throw here is caught here, the request handed on or, once answered, cut off
        try {
          if (body._tag === "Failed") return next()
          keepBody(request, body)
          if (
            body._tag !== "Text" || nestedDeeperThan(body.text, MAX_JSON_DEPTH) || nulFieldsInJson(body.text).length > 0
          ) {
            return next()
          }
          const call = direct.parse(body.text)
          if (call === undefined) return next()
          const now = Object.keys(call.arguments).length === 0 ? fromMemory.get(call.name) : undefined
          let result: (() => string) | undefined
          const checked = check(headers, clock.unsafeCurrentTimeMillis(), (principal) => {
            result = now?.(principal)
            return true
          })
          if (checked === undefined) return next()
          const limits = rateLimitHeaders(checked.decision)
          if (result !== undefined) {
            const id = JSON.stringify(call.id)
            return writeJsonText(response, 200, limits, `{"jsonrpc":"2.0","id":${id},"result":${result()}}`)
          }
          run(direct.answerBody(checked.principal, call), {
            // the answer catches every failure into a JSON-RPC error: only an interruption (the app closing) is left
            onExit: (exit) => Exit.isSuccess(exit) ? writeJson(response, 200, limits, exit.value) : response.destroy()
          })
        } catch (error) {
          if (response.headersSent) response.destroy(error as Error)
          else next()
        }
      })
      return true
    }
  }
  return lane
})
