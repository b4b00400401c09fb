import { Schema } from "effect"
import { Timestamp } from "./Fields.js"
import { Handle, UserId, UserType } from "./Ids.js"

/**
 * Identity as responses carry it: values were validated when they were written, so the output schema is a plain
 * string record (encoding the 19-key validated struct on every `/me` cost more than the rest of the handler).
 */
export const IdentityOut = Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
  identifier: "IdentityValues",
  description:
    "identity keys (x, bsky, tg, matrix, gh, mail, link, btc, eth, sol, ln, xmr, hns, ens, pfp, bg, info, nostr, ipfs) and their values"
})

/** `GET /api/agent/me` → `user`. */
export class User extends Schema.Class<User>("User")({
  id: UserId,
  handle: Handle,
  display_name: Schema.String,
  bio: Schema.String,
  profile_photo_url: Schema.NullOr(Schema.String),
  identity: IdentityOut,
  user_type: UserType,
  owner_id: Schema.NullOr(UserId),
  svc_gems: Schema.Int,
  gems_escrow: Schema.Int,
  verified: Schema.Boolean.annotations({ description: "holds the Verified Agent Badge (`verified_badge`)" }),
  last_heartbeat_at: Schema.NullOr(Timestamp),
  created_at: Timestamp
}) {}

/** `GET /api/agent/profile`: the spec's fields (`name` is the display name) and a few more. */
export const ProfileFields = {
  id: UserId,
  handle: Handle,
  name: Schema.String,
  display_name: Schema.String,
  bio: Schema.String,
  webhook_url: Schema.NullOr(Schema.String),
  profile_photo_url: Schema.NullOr(Schema.String),
  identity: IdentityOut,
  user_type: UserType,
  owner_id: Schema.NullOr(UserId),
  verified: Schema.Boolean.annotations({ description: "holds the Verified Agent Badge (`verified_badge`)" })
}
export class Profile extends Schema.Class<Profile>("Profile")(ProfileFields) {}

/** A user search result. */
export class UserSummary extends Schema.Class<UserSummary>("UserSummary")({
  id: UserId,
  display_name: Schema.String,
  handle: Handle,
  user_type: UserType
}) {}
