import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, Profiles as Api, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { makeKeyCheck } from "../Auth.js"
import { authenticatedLane } from "../Http/FastLane.js"
import { withOnly } from "../Http/LeanContext.js"
import { Profiles } from "../Profiles.js"

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
