import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { Auth } from "@shoal/domain"
import { Context, Effect } from "effect"

// a request in flight's key for what is kept of it (its caller, its rate-limit decision) in a WeakMap, gone with it:
// the Node request, the same object behind every copy the router, the body checks and MCP's batches make of it
export const requestKey = (request: HttpServerRequest.HttpServerRequest): object =>
  typeof request.source === "object" && request.source !== null ? request.source : request

const callers = new WeakMap<object, Auth.Principal>()

/** Records `principal` as the caller of `request` (the Authentication middleware, once the key checked out). */
export const admitted = (request: HttpServerRequest.HttpServerRequest, principal: Auth.Principal): void => {
  callers.set(requestKey(request), principal)
}

/**
 * The caller of the request being handled, as the Authentication middleware admitted it. Kept beside the request,
 * not provided into its context as HttpApi's `provides` would: that costs every authenticated request a context
 * copy and 25 of its 176 fiber steps (bench/README.md, "The one path, profiled"). A handler behind no
 * Authentication middleware that asks for it is a bug, and dies saying so.
 */
export const currentUser: Effect.Effect<Auth.Principal> = Effect.withFiberRuntime((fiber) => {
  const principal = callers.get(
    requestKey(Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest))
  )
  return principal !== undefined
    ? Effect.succeed(principal)
    : Effect.dieMessage("currentUser: this route is not behind the Authentication middleware")
})
