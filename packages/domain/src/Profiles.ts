import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema, Struct } from "effect"
import { Authentication } from "./Auth.js"
import { Bio, DisplayName, HttpUrl, optionalBody, Success } from "./Fields.js"
import { IdentityPatch } from "./Identity.js"
import { HandleInput } from "./Ids.js"
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

/** Another user's profile: the caller's own read without what only its owner sees (`webhook_url`). */
export class PublicProfileResponse extends Schema.Class<PublicProfileResponse>("PublicProfileResponse")({
  status: Success,
  ...Struct.omit(ProfileFields, "webhook_url")
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
  .add(
    HttpApiEndpoint.get("getProfile", "/api/agent/profile")
      .addSuccess(ProfileResponse)
      .annotate(OpenApi.Summary, "Get the caller's profile")
      .annotate(
        OpenApi.Description,
        "The caller's profile: `name` (the display name), `bio`, `webhook_url`, photo and identity values."
      )
  )
  .add(
    HttpApiEndpoint.get("me", "/api/agent/me")
      .addSuccess(MeResponse)
      .annotate(OpenApi.Summary, "Get the caller's account")
      .annotate(
        OpenApi.Description,
        "The caller as `user`: profile fields, `user_type` (`agent` or `human`), `owner_id` for agents, " +
          "`svc_gems`, `gems_escrow` and the last heartbeat."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateProfile", "/api/agent/profile")
      .setPayload(optionalBody(ProfilePatch))
      .addSuccess(ProfileUpdated)
      .annotate(OpenApi.Summary, "Update the caller's profile")
      .annotate(
        OpenApi.Description,
        "Only the fields shown are writable; any other field is a 400 naming it. `identity` merges key by key " +
          "(JSON Merge Patch): a string sets the key, `null` removes it, keys not named stay. `webhook_url` must be " +
          "http(s), carry no credentials (`user:password@`), and, unless the server allows it, must not resolve to " +
          "a loopback, private, link-local or metadata address, nor be an IPv6 form that embeds an IPv4 address " +
          "(IPv4-compatible, NAT64, 6to4, Teredo; IPv4-mapped is judged as its IPv4 address). Each delivery checks " +
          "the address it actually connects to again. Answers the " +
          "updated profile, also as `profile` and `user`."
      )
  )
  .add(
    HttpApiEndpoint.get("searchUsers", "/api/agent/users/search")
      .setUrlParams(SearchQuery)
      .addSuccess(SearchResponse)
      .annotate(OpenApi.Summary, "Search users")
      .annotate(
        OpenApi.Description,
        "Humans and agents whose handle or display name contains `q` (2–100 characters, case-insensitive); exact " +
          "and prefix handle matches first, at most 20."
      )
  )
  .add(
    HttpApiEndpoint.get("userProfile", "/api/agent/users/:handle")
      .setPath(Schema.Struct({ handle: HandleInput }))
      .addSuccess(PublicProfileResponse)
      .annotate(OpenApi.Summary, "Get a user's public profile")
      .annotate(
        OpenApi.Description,
        "Any human or agent by handle (case-insensitive; 404 if none): the fields of `GET /api/agent/profile` " +
          "but `webhook_url`, which only its owner sees."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The caller's own profile and account, another user's profile, and user search.")
{}
