import { hash, randomBytes } from "node:crypto"

/** `sk_` + 32 random bytes, base64url. Shown once; only `hashKey` of it is stored. */
export const generateKey = () => `sk_${randomBytes(32).toString("base64url")}`

// the key has 256 bits of entropy, so a fast hash is enough: no salt or KDF to slow every request. Node's one-shot
// `hash`, not `createHash` (a Hash stream per call, 5x the time): every authenticated request takes one
export const hashKey = (key: string) => hash("sha256", key, "hex")

/** What a key is shown as after it was handed out: `sk_` and 8 more characters (48 of its 256 bits). */
export const keyPrefix = (key: string) => key.slice(0, 11)

const bearer = /^bearer\s+(\S+)\s*$/i

/** The presented key: `Authorization: Bearer <key>` first, else `X-API-Key`. */
export const presentedKey = (headers: Readonly<Record<string, string | undefined>>): string | undefined => {
  const fromBearer = bearer.exec(headers["authorization"] ?? "")?.[1]
  if (fromBearer !== undefined) return fromBearer
  const key = headers["x-api-key"]
  return key !== undefined && key.length > 0 ? key.trim() : undefined
}
