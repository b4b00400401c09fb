import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, Profiles as Api, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { makeKeyCheck, makeKeyCheckNow } from "../Auth.js"
import { rateLimitHeaders } from "../Auth/RateLimiter.js"
import { authenticatedLane } from "../Http/FastLane.js"
import { type NodeLane, writeJson } from "../Http/FrontDoor.js"
import { withOnly } from "../Http/LeanContext.js"
import { declaresBody } from "../Http/RequestChecks.js"
import { Profiles } from "../Profiles.js"
import type { UserRow } from "./Repo.js"

export const ProfilesHttpLive = HttpApiBuilder.group(ShoalApi, "profiles", (handlers) =>
  Effect.gen(function*() {
    const profiles = yield* Profiles
    return handlers
      .handle("getProfile", () =>
        Effect.flatMap(Auth.CurrentUser, (caller) => profiles.profile(caller.id)).pipe(
          Effect.map((p) => new Api.ProfileResponse({ status: "success", ...p }, true))
        ))
      // the hottest read: answered with its wire form directly (the typed client still decodes it as MeResponse)
      .handle("me", () =>
        Effect.flatMap(Auth.CurrentUser, (caller) => profiles.meJson(caller.id)).pipe(
          Effect.map((user) => HttpServerResponse.unsafeJson({ status: "success", user }))
        ))
      .handle("updateProfile", ({ payload }) =>
        Effect.flatMap(Auth.CurrentUser, (caller) =>
          profiles.update(caller, payload)).pipe(
            // its wire form directly, like /me (the typed client still decodes it as ProfileUpdated)
            Effect.map(({ profile, user }) =>
              HttpServerResponse.unsafeJson({ status: "success", ...profile, profile, user })
            )
          ))
      .handle("userProfile", ({ path }) =>
        Effect.map(profiles.byHandle(path.handle), (p) =>
          new Api.PublicProfileResponse({ status: "success", ...p })))
      .handle("searchUsers", ({ urlParams }) =>
        Effect.map(profiles.search(urlParams.q), (users) =>
          new Api.SearchResponse({ status: "success", users })))
  })).pipe(withOnly(Profiles, Auth.Authentication))

/** `/me`'s fast lane (src/Http/FastLane.ts): a known key within its limit gets the same body as the handler's. */
export const MeLane = Effect.gen(function*() {
  const profiles = yield* Profiles
  return authenticatedLane(
    "GET",
    "/api/agent/me",
    yield* makeKeyCheck,
    ({ principal }) => Effect.map(profiles.meJson(principal.id), (user) => ({ status: "success", user }))
  )
})

/**
 * `/me` at the front door (src/Http/FrontDoor.ts), ahead of even its fast lane: a call without a body from a key
 * whose principal is cached, within its limit, whose profile row is in the profile cache and not marked by a Gem
 * movement, is answered on Node's response from the very row the general path would read at that moment (the same
 * cache, invalidated by the same writes). The rest (a row to look up, a mark to take) goes on to the fast lane and
 * the general path, with nothing taken or touched.
 */
export const MeFrontLane = Effect.gen(function*() {
  const profiles = yield* Profiles
  const check = yield* makeKeyCheckNow
  const clock = yield* Effect.clock
  const lane: NodeLane = {
    method: "GET",
    path: "/api/agent/me",
    answer: (request, response) => {
      if (declaresBody(request.headers as Record<string, string | undefined>)) return false
      let row: UserRow | undefined
      const checked = check(
        request.headers,
        clock.unsafeCurrentTimeMillis(),
        (principal) => (row = profiles.meRowNow(principal.id)) !== undefined
      )
      if (checked === undefined || row === undefined) return false
      writeJson(response, 200, rateLimitHeaders(checked.decision), { status: "success", user: profiles.meJsonOf(row) })
      return true
    }
  }
  return lane
})
