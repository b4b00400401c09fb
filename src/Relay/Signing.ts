import { createHmac } from "node:crypto"

/**
 * The headers of one push: the signature only when the relay has a secret (the channel accepts none then), as the
 * OpenClaw channel verifies it: `v1=` + hex HMAC-SHA256, keyed with the relay's webhook secret as text, of
 * `${timestamp}.${body}`, the timestamp in milliseconds (X-PowerLobster-Timestamp).
 */
export const pushHeaders = (secret: string | null, timestamp: number, body: string): Record<string, string> =>
  secret === null || secret === ""
    ? {}
    : {
      "x-powerlobster-timestamp": String(timestamp),
      "x-powerlobster-signature": `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`
    }
