import { randomBytes } from "node:crypto"

/** `rl_` + 12 random bytes in hex: a name, not a secret (it appears in URLs). */
export const generateRelayId = () => `rl_${randomBytes(12).toString("hex")}`

/** `rk_` + 32 random bytes, base64url: a credential apart from account keys (`sk_`), looked up by its sha256. */
export const generateRelayKey = () => `rk_${randomBytes(32).toString("base64url")}`
