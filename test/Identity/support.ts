import { bech32 } from "@scure/base"
import { randomBytes } from "node:crypto"

/** A real, checksummed npub and the hex key it holds. */
export const makeNpub = () => {
  const bytes = randomBytes(32)
  return { npub: bech32.encode("npub", bech32.toWords(bytes)), hex: bytes.toString("hex") }
}

/** What a third party would write: RFC 8785 for documents of strings and objects (keys sorted, no whitespace). */
export const canonical = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  const obj = value as Record<string, unknown>
  return `{${Object.keys(obj).sort().map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(",")}}`
}
