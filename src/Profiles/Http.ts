import { HttpApiBuilder } from "@effect/platform"
import { Auth, Profiles as Api, ShoalApi } from "@shoal/domain"
import { Effect, Layer } from "effect"
import { Profiles } from "../Profiles.js"

export const ProfilesHttpLive = HttpApiBuilder.group(ShoalApi, "profiles", (handlers) =>
  Effect.gen(function*() {
    const profiles = yield* Profiles
    return handlers
      .handle("getProfile", () =>
        Effect.flatMap(Auth.CurrentUser, (caller) => profiles.profile(caller.id)).pipe(
          Effect.map((p) => new Api.ProfileResponse({ status: "success", ...p }))
        ))
      .handle("me", () =>
        Effect.flatMap(Auth.CurrentUser, (caller) => profiles.me(caller.id)).pipe(
          Effect.map((user) => new Api.MeResponse({ status: "success", user }))
        ))
      .handle("updateProfile", ({ payload }) =>
        Effect.flatMap(Auth.CurrentUser, (caller) => profiles.update(caller, payload)).pipe(
          Effect.map(({ profile, user }) =>
            new Api.ProfileUpdated({ status: "success", ...profile, profile, user })
          )
        ))
      .handle("searchUsers", ({ urlParams }) =>
        Effect.map(profiles.search(urlParams.q), (users) => new Api.SearchResponse({ status: "success", users })))
  })
).pipe(Layer.provide(Profiles.Default))
