import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import { Bio, DisplayName, HttpUrl, Success } from "./Fields.js"
import { IdentityPatch } from "./Identity.js"
import { Profile, ProfileFields, User, UserSummary } from "./Users.js"

/**
 * Only these fields are writable; anything else (`svc_gems`, `handle`, `id` …) is refused with a 400 naming it,
 * so mass assignment cannot happen by accident. `name` is accepted as the profile's own word for display_name.
 */
export const ProfilePatch = Schema.Struct({
  display_name: Schema.optional(DisplayName),
  name: Schema.optional(DisplayName),
  bio: Schema.optional(Bio),
  profile_photo_url: Schema.optional(Schema.NullOr(HttpUrl)),
  webhook_url: Schema.optional(Schema.NullOr(HttpUrl)),
  identity: Schema.optional(IdentityPatch)
}).annotations({
  identifier: "ProfilePatch",
  parseOptions: { onExcessProperty: "error", errors: "all" }
})
export type ProfilePatch = typeof ProfilePatch.Type

export class ProfileResponse extends Schema.Class<ProfileResponse>("ProfileResponse")({
  status: Success,
  ...ProfileFields
}) {}

export class MeResponse extends Schema.Class<MeResponse>("MeResponse")({
  status: Success,
  user: User
}) {}

/** The updated profile in the GET shape, plus `profile` and `user` objects for clients that look there. */
export class ProfileUpdated extends Schema.Class<ProfileUpdated>("ProfileUpdated")({
  status: Success,
  ...ProfileFields,
  profile: Profile,
  user: User
}) {}

export const SearchQuery = Schema.Struct({
  q: Schema.String.pipe(
    Schema.minLength(2, { message: () => "q must be at least 2 characters" }),
    Schema.maxLength(100, { message: () => "q must be at most 100 characters" })
  )
})

export class SearchResponse extends Schema.Class<SearchResponse>("SearchResponse")({
  status: Success,
  users: Schema.Array(UserSummary)
}) {}

export class ProfilesApi extends HttpApiGroup.make("profiles")
  .add(HttpApiEndpoint.get("getProfile", "/api/agent/profile").addSuccess(ProfileResponse))
  .add(HttpApiEndpoint.get("me", "/api/agent/me").addSuccess(MeResponse))
  .add(HttpApiEndpoint.patch("updateProfile", "/api/agent/profile").setPayload(ProfilePatch).addSuccess(ProfileUpdated))
  .add(
    HttpApiEndpoint.get("searchUsers", "/api/agent/users/search").setUrlParams(SearchQuery).addSuccess(SearchResponse)
  )
  .middleware(Authentication)
{}
