import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { Auth } from "@shoal/domain"
import { Context, Effect } from "effect"

// the caller each request in flight was admitted as, by its source (the Node request: the same object behind every
// copy the router, the body checks and MCP's batches make of the request); gone with it
const callers = new WeakMap<object, Auth.Principal>()
const keyOf = (request: HttpServerRequest.HttpServerRequest): object =>
  typeof request.source === "object" && request.source !== null ? request.source : request

/** Records `principal` as the caller of `request` (the Authentication middleware, once the key checked out). */
export const admitted = (request: HttpServerRequest.HttpServerRequest, principal: Auth.Principal): void => {
  callers.set(keyOf(request), principal)
}

/**
 * The caller of the request being handled, as the Authentication middleware admitted it. Kept beside the request,
 * not provided into its context as HttpApi's `provides` would: that costs every authenticated request a context
 * copy and ~27 of its ~176 fiber steps (bench/README.md, "The one path, profiled"). A handler behind no
 * Authentication middleware that asks for it is a bug, and dies saying so.
 */
export const currentUser: Effect.Effect<Auth.Principal> = Effect.withFiberRuntime((fiber) => {
  const principal = callers.get(keyOf(Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)))
  return principal !== undefined
    ? Effect.succeed(principal)
    : Effect.dieMessage("currentUser: this route is not behind the Authentication middleware")
})
