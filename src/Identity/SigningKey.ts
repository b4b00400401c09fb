import { IdentityApi } from "@shoal/domain"
import { Config, ConfigError, Effect, Either, Option, Redacted } from "effect"
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import { SigningKeysRepo } from "./KeysRepo.js"

// PKCS#8 wrapping of a raw 32-byte Ed25519 seed (RFC 8410), so a bare seed can be imported
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex")

/** `IDENTITY_SIGNING_KEY`: a PKCS#8 PEM, or the 32-byte seed as hex or base64(url). */
export const parsePrivateKey = (text: string): Either.Either<KeyObject, string> => {
  const t = text.trim()
  try {
    const key = t.startsWith("-----BEGIN")
      ? createPrivateKey(t)
      : createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seedOf(t)]), format: "der", type: "pkcs8" })
    return key.asymmetricKeyType === "ed25519" ? Either.right(key) : Either.left("must be an Ed25519 key")
  } catch (e) {
    return Either.left(e instanceof Error ? e.message : "unreadable key")
  }
}

const seedOf = (t: string) => {
  const seed = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, "hex") : Buffer.from(t, "base64url")
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes (64 hex or 43 base64url characters)")
  return seed
}

/** The public half as a JWK whose `kid` is its RFC 7638 thumbprint: the same key always gets the same id. */
export const publicJwk = (privateKey: KeyObject): IdentityApi.PublicJwk => {
  const x = createPublicKey(privateKey).export({ format: "jwk" }).x as string
  const kid = createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url")
  return new IdentityApi.PublicJwk({ kid, kty: "OKP", crv: "Ed25519", x, alg: "EdDSA", use: "sig" })
}

// unset or empty: use the stored key; set but unusable: refuse to start rather than sign with a surprise key
const configuredKey = Config.option(Config.redacted("IDENTITY_SIGNING_KEY")).pipe(
  Config.mapOrFail((secret) => {
    const text = Option.match(secret, { onNone: () => "", onSome: Redacted.value }).trim()
    if (text === "") return Either.right(Option.none<KeyObject>())
    return Either.mapBoth(parsePrivateKey(text), {
      onLeft: (reason) => ConfigError.InvalidData(["IDENTITY_SIGNING_KEY"], `not a usable Ed25519 key: ${reason}`),
      onRight: Option.some
    })
  })
)

/** The key that signs identity proofs: from config when set, else made once and kept in the database. */
export class SigningKey extends Effect.Service<SigningKey>()("Identity/SigningKey", {
  effect: Effect.gen(function*() {
    const configured = yield* configuredKey
    const privateKey = Option.isSome(configured) ? configured.value : yield* storedKey
    const jwk = publicJwk(privateKey)

    /** base64url Ed25519 signature of the UTF-8 bytes of `text`. */
    const signText = Effect.fn("SigningKey.sign")((text: string) =>
      Effect.sync(() => sign(null, Buffer.from(text, "utf8"), privateKey).toString("base64url"))
    )
    return { jwk, sign: signText } as const
  }),
  dependencies: [SigningKeysRepo.Default]
}) {}

const storedKey = Effect.gen(function*() {
  const repo = yield* SigningKeysRepo
  const existing = yield* repo.active()
  if (Option.isSome(existing)) return keyFromRow(existing.value.private_pkcs8)
  const { privateKey } = generateKeyPairSync("ed25519")
  const jwk = publicJwk(privateKey)
  yield* repo.insertIfNone({
    kid: jwk.kid,
    private_pkcs8: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
    public_x: jwk.x
  })
  // another node may have stored its key first: everyone signs with the row that won
  const winner = yield* repo.active()
  if (Option.isNone(winner)) return yield* Effect.dieMessage("identity signing key vanished after insert")
  yield* Effect.logInfo(`identity signing key ${winner.value.kid} ready`)
  return keyFromRow(winner.value.private_pkcs8)
}).pipe(Effect.orDie)

const keyFromRow = (pkcs8: string) =>
  createPrivateKey({ key: Buffer.from(pkcs8, "base64"), format: "der", type: "pkcs8" })
