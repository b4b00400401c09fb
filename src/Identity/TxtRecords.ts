import { Identity } from "@shoal/domain"

/**
 * One `prefix:value` string per set identity field, in the order of `IdentityKeys`; empty values are skipped and
 * control characters (an `info` may hold newlines) become spaces. The spec names the prefixes `btc:`, `nostr:`,
 * `pfp:`, `bio:`, `link:`; other keys keep their own name, and `info` (the identity's bio) goes out as `bio:`. The
 * profile's `bio` is not used: the identity is what the user chose to publish; `identity.info = null` removes it.
 */
export const txtRecords = (identity: Identity.Identity): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const key of Identity.IdentityKeys) {
    const raw = identity[key]
    if (raw === undefined) continue
    const value = raw.replace(/[\u0000-\u001f\u007f]+/g, " ").trim()
    if (value.length > 0) out.push(`${key === "info" ? "bio" : key}:${value}`)
  }
  return out
}
