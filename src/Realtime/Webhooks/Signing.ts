import { createHmac, randomBytes } from "node:crypto"

/** `whsec_` + 24 random bytes in base64, the Standard Webhooks secret format. */
export const generateSecret = () => `whsec_${randomBytes(24).toString("base64")}`

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the bytes of the
 * secret's base64 part. Receivers verify it with any Standard Webhooks library.
 */
export const sign = (secret: string, id: string, timestamp: number, body: string) => {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64")
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`
}
