import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as OpenApi from "@effect/platform/OpenApi"
import { ParseResult, Schema } from "effect"
import { Authentication } from "./Auth.js"
import { HttpUrl, Success, Timestamp } from "./Fields.js"

/**
 * The public identity layer: the signed identity proof, the key that verifies it, the NIP-05 file, and the
 * caller's naming-system domain settings. Unset string values are "" (the specification types them as strings).
 */

/** `Access-Control-Allow-Origin: *` on every answer of a group, errors included (it runs before decoding). */
export class PublicCors extends HttpApiMiddleware.Tag<PublicCors>()("Shoal/PublicCors") {}

export class IdentityRecords extends Schema.Class<IdentityRecords>("IdentityRecords")({
  nostr: Schema.String,
  btc: Schema.String,
  hns: Schema.String
}) {}

/**
 * `signature` is Ed25519 (base64url, no padding) over the UTF-8 bytes of the canonical JSON (RFC 8785: keys sorted,
 * no whitespace) of the whole response body with `proof.signature` removed; `key_id` names the key in
 * `/.well-known/shoal-keys.json`.
 */
export class ProofBlock extends Schema.Class<ProofBlock>("ProofBlock")({
  issuer: Schema.String,
  timestamp: Timestamp,
  key_id: Schema.String,
  signature: Schema.String
}) {}

export class IdentityProof extends Schema.Class<IdentityProof>("IdentityProof")({
  status: Success,
  handle: Schema.String,
  /** the user's `hns` identity value, "" when none is linked */
  hns_handle: Schema.String,
  display_name: Schema.String,
  records: IdentityRecords,
  proof: ProofBlock
}) {}

/** A public Ed25519 key as an RFC 8037 JWK; `kid` is its RFC 7638 thumbprint. */
export class PublicJwk extends Schema.Class<PublicJwk>("PublicJwk")({
  kid: Schema.String,
  kty: Schema.Literal("OKP"),
  crv: Schema.Literal("Ed25519"),
  x: Schema.String,
  alg: Schema.Literal("EdDSA"),
  use: Schema.Literal("sig")
}) {}

export class KeySet extends Schema.Class<KeySet>("KeySet")({ keys: Schema.Array(PublicJwk) }) {}

/** NIP-05: `names` maps the requested name to a lowercase hex public key; `{"names":{}}` when unknown. */
export class NostrJson extends Schema.Class<NostrJson>("NostrJson")({
  names: Schema.Record({ key: Schema.String, value: Schema.String }),
  relays: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }))
}) {}

export const NostrQuery = Schema.Struct({ name: Schema.optional(Schema.String) })

const tldPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** A top-level label: lowercased, then 1–63 of a-z 0-9 and inner hyphens (the DNS LDH rule). */
export const Tld = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (s, _, ast) => {
    const lower = s.toLowerCase()
    return tldPattern.test(lower)
      ? ParseResult.succeed(lower)
      : ParseResult.fail(new ParseResult.Type(ast, s, "a tld is 1 to 63 characters of a-z, 0-9 and inner hyphens"))
  },
  encode: ParseResult.succeed
}).annotations({ identifier: "Tld", examples: ["alice"] })

export const DomainMode = Schema.Literal("profile", "redirect", "custom")
export type DomainMode = typeof DomainMode.Type

/** Sets the whole setting of one tld; `redirect_url` is required for `redirect` and kept (inert) otherwise. */
export const DomainPatch = Schema.Struct({
  domain_mode: DomainMode,
  redirect_url: Schema.optional(Schema.NullOr(HttpUrl))
}).annotations({ parseOptions: { onExcessProperty: "error", errors: "all" } }).pipe(
  Schema.filter((p) =>
    p.domain_mode === "redirect" && (p.redirect_url === undefined || p.redirect_url === null)
      ? { path: ["redirect_url"], message: "redirect_url is required when domain_mode is redirect" }
      : undefined
  ),
  Schema.annotations({ identifier: "DomainPatch" })
)
export type DomainPatch = typeof DomainPatch.Type

export class Domain extends Schema.Class<Domain>("Domain")({
  tld: Schema.String,
  mode: DomainMode,
  /** "" when none is set */
  redirect_url: Schema.String
}) {}

export class DomainResponse extends Schema.Class<DomainResponse>("DomainResponse")({
  status: Success,
  domain: Domain
}) {}

export class DomainsResponse extends Schema.Class<DomainsResponse>("DomainsResponse")({
  status: Success,
  domains: Schema.Array(Domain)
}) {}

/** No key needed: third parties read these. */
export class IdentityApi extends HttpApiGroup.make("identity")
  .add(
    HttpApiEndpoint.get("proof", "/api/identity/:handle")
      .setPath(Schema.Struct({ handle: Schema.String }))
      .addSuccess(IdentityProof)
      .annotate(OpenApi.Summary, "Get a user's signed identity proof")
      .annotate(
        OpenApi.Description,
        "No key needed. " +
          "Signed identity proof. To verify: remove proof.signature, serialize the rest as RFC 8785 canonical JSON, " +
          "and check the Ed25519 signature (base64url) with the key proof.key_id from /.well-known/shoal-keys.json."
      )
  )
  .add(
    HttpApiEndpoint.get("keys", "/.well-known/shoal-keys.json")
      .addSuccess(KeySet)
      .annotate(OpenApi.Summary, "Get the identity proof signing keys")
      .annotate(OpenApi.Description, "No key needed. The public keys (JWK, Ed25519) that sign identity proofs.")
  )
  .add(
    HttpApiEndpoint.get("nostr", "/.well-known/nostr.json")
      .setUrlParams(NostrQuery)
      .addSuccess(NostrJson)
      .annotate(OpenApi.Summary, "Resolve a NIP-05 name")
      .annotate(
        OpenApi.Description,
        "No key needed. NIP-05: `names` maps the requested name to the hex public key of its `nostr` identity. " +
          "An unknown name, or a user without a nostr key, gives {\"names\":{}}."
      )
  )
  .middleware(PublicCors)
  .annotate(
    OpenApi.Description,
    "Public identity documents for third parties, with `Access-Control-Allow-Origin: *`: signed proofs, their keys, NIP-05."
  )
{}

export class DomainsApi extends HttpApiGroup.make("domains")
  .add(
    HttpApiEndpoint.get("listDomains", "/api/agent/domains")
      .addSuccess(DomainsResponse)
      .annotate(OpenApi.Summary, "List the caller's domain settings")
      .annotate(OpenApi.Description, "Every tld the caller has a setting for, with its mode and redirect URL.")
  )
  .add(
    HttpApiEndpoint.patch("setDomain", "/api/agent/domains/:tld")
      .setPath(Schema.Struct({ tld: Tld }))
      .setPayload(DomainPatch)
      .addSuccess(DomainResponse)
      .annotate(OpenApi.Summary, "Set the caller's setting for one tld")
      .annotate(
        OpenApi.Description,
        "Sets the whole setting of one tld for the caller: `domain_mode` `profile`, `redirect` (then `redirect_url` " +
          "is required) or `custom`. The tld must be the one the caller's identity `hns` names: `hns` equals the tld, " +
          "compared lowercased and without a trailing `/` (Handshake's `alice/`) or `.`; a name under it " +
          "(`blog.alice`) does not name `alice`. Otherwise a 403 `forbidden`: set `identity.hns` first " +
          "(PATCH /api/agent/profile). A tld belongs to one account: while its holder's `hns` still names it, " +
          "anyone else gets a 409 `conflict`; a holder whose `hns` has moved on loses the tld to the next account " +
          "whose `hns` names it."
      )
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "The caller's naming-system domain settings, one per tld: `profile`, `redirect` or `custom`."
  )
{}
