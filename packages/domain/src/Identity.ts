import { bech32 } from "@scure/base"
import { Either, Schema } from "effect"
import { Email, HttpUrl, limited } from "./Fields.js"

export const IdentityKeys = [
  "x",
  "bsky",
  "tg",
  "matrix",
  "gh",
  "mail",
  "link",
  "btc",
  "eth",
  "sol",
  "ln",
  "xmr",
  "hns",
  "ens",
  "pfp",
  "bg",
  "info",
  "nostr",
  "ipfs"
] as const
export type IdentityKey = typeof IdentityKeys[number]

/** Lowercase hex public key of a bech32 `npub`, or Left with the reason. */
export const npubToHex = (npub: string): Either.Either<string, string> => {
  try {
    const { prefix, words } = bech32.decode(npub as `${string}1${string}`, 1_000)
    if (prefix !== "npub") return Either.left("must be a bech32 npub")
    const bytes = bech32.fromWords(words)
    if (bytes.length !== 32) return Either.left("an npub holds a 32-byte key")
    return Either.right(Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""))
  } catch {
    return Either.left("must be a bech32 npub (checksum failed)")
  }
}

export const Npub = Schema.String.pipe(
  Schema.filter((s) => Either.match(npubToHex(s), { onLeft: (m) => m, onRight: () => true }), {
    // property tests: encode random keys rather than filter random strings
    arbitrary: () => (fc) =>
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((key) => bech32.encode("npub", bech32.toWords(key)))
  })
)

// no control characters: the values end up in DNS TXT records and JSON documents
const Text = limited(1_000, 1).pipe(
  Schema.filter((s) => !/[\u0000-\u001f\u007f]/.test(s) || "must not contain control characters")
)

const valueSchema = (key: IdentityKey): Schema.Schema<string> => {
  switch (key) {
    case "pfp":
    case "bg":
    case "link":
      return HttpUrl
    case "nostr":
      return Npub
    case "mail":
      return Email
    case "info":
      return limited(2_000)
    default:
      return Text
  }
}

const build = <F>(f: (key: IdentityKey) => F) =>
  Object.fromEntries(IdentityKeys.map((k) => [k, f(k)])) as { readonly [K in IdentityKey]: F }

/** Stored identity: every key optional, values already validated. */
export const Identity = Schema.Struct(build((k) => Schema.optional(valueSchema(k)))).annotations({
  identifier: "Identity"
})
export type Identity = typeof Identity.Type

/** A PATCH of the identity: JSON Merge Patch (a string sets, null removes, absent keeps). Unknown keys refused. */
export const IdentityPatch = Schema.Struct(build((k) => Schema.optional(Schema.NullOr(valueSchema(k))))).annotations({
  identifier: "IdentityPatch",
  parseOptions: { onExcessProperty: "error" }
})
export type IdentityPatch = typeof IdentityPatch.Type

export const mergeIdentity = (current: Identity, patch: IdentityPatch): Identity => {
  const next: Record<string, string> = { ...current }
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete next[k]
    else if (v !== undefined) next[k] = v
  }
  return next
}
