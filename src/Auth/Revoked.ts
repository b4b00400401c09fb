import { Ids } from "@shoal/domain"
import { Schema } from "effect"

/**
 * NOTIFY channel: "these keys (or console sessions) of this account were revoked". Sent inside the rotation's
 * transaction, so only if it commits; every node then closes the sockets opened with those keys and uncaches them.
 */
export const KeysChannel = "shoal_keys"

/**
 * The notice: whose keys, as their hashes (what sockets and the key cache know them by; never the keys). Signing
 * out of the console sends one with the session token's hash (src/Auth/SessionsRepo.ts): the sockets that session
 * opened close like a revoked key's.
 */
export const RevokedKeys = Schema.Struct({ user_id: Ids.UserId, key_hashes: Schema.Array(Schema.String) })

const Json = Schema.parseJson(RevokedKeys)
export const encode = Schema.encodeSync(Json)
export const decode = Schema.decodeUnknownOption(Json)
