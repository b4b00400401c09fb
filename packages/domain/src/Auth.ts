import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import { Schema } from "effect"
import { RateLimitedWire, UnauthorizedWire } from "./Errors.js"
import type { Handle, UserId, UserType } from "./Ids.js"

export interface Principal {
  readonly id: UserId
  readonly handle: Handle
  readonly userType: UserType
  readonly ownerId: UserId | null
  /** sha256 of the presented key: the cache and rate-limit key. */
  readonly keyHash: string
  /** sha256 of the console session's token, when a cookie stood in for the key: signing out closes its sockets */
  readonly sessionHash?: string
}

/**
 * API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`. One plain middleware reads both headers itself:
 * HttpApi's security schemes retry each scheme on any failure, which would turn a 429 into a 401.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Shoal/Authentication", {
  failure: Schema.Union(UnauthorizedWire, RateLimitedWire)
}) {}
