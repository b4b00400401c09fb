import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, Profiles as Api, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok } from "../Http/RequestOf.js"
import { Profiles } from "../Profiles.js"

export const ProfilesHttpLive = HttpApiBuilder.group(ShoalApi, "profiles", (handlers) =>
  Effect.gen(function*() {
    const profiles = yield* Profiles
    return handlers
      .handle("getProfile", () =>
        Effect.flatMap(currentUser, (caller) => profiles.profile(caller.id)).pipe(
          Effect.map(ok(Api.ProfileResponse))
        ))
      // the hottest read: answered with its wire form directly (the typed client still decodes it as MeResponse)
      .handle("me", () =>
        Effect.flatMap(currentUser, (caller) => profiles.meJson(caller.id)).pipe(
          Effect.map((user) => HttpServerResponse.unsafeJson({ status: "success", user }))
        ))
      .handle("updateProfile", ({ payload }) =>
        Effect.flatMap(currentUser, (caller) =>
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
