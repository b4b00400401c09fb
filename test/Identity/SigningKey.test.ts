import { expect, it, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { generateKeyPairSync } from "node:crypto"
import { parsePrivateKey, publicJwk, SigningKey } from "../../src/Identity/SigningKey.js"
import { TestDatabase } from "../support/TestDatabase.js"

const pair = generateKeyPairSync("ed25519")
const seed = pair.privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32)
const x = pair.publicKey.export({ format: "jwk" }).x

it("IDENTITY_SIGNING_KEY may be a PKCS#8 PEM or the seed as hex or base64url; anything else is refused", () => {
  const pem = pair.privateKey.export({ format: "pem", type: "pkcs8" }).toString()
  for (const text of [pem, seed.toString("hex"), seed.toString("base64url"), ` ${seed.toString("base64")}\n`]) {
    expect(Either.map(parsePrivateKey(text), (k) => publicJwk(k).x)).toEqual(Either.right(x))
  }
  const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ format: "pem", type: "pkcs8" })
  const brokenPem = "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----"
  const bad = [rsa.toString(), "c2hvcnQ", "zz".repeat(32), brokenPem]
  for (const text of bad) {
    expect(Either.isLeft(parsePrivateKey(text))).toBe(true)
  }
})

it("the key id is the RFC 7638 thumbprint of the public JWK", () => {
  // RFC 8037 appendix A.3's example key and thumbprint
  const rfc = parsePrivateKey("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
  const jwk = publicJwk(Either.getOrThrow(rfc))
  expect(jwk.x).toBe("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
  expect(jwk.kid).toBe("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
})

layer(TestDatabase)("stored signing key", (it) => {
  it.effect("is made once and reused by every later start on the same database", () =>
    Effect.gen(function*() {
      const start = Effect.map(Effect.provide(SigningKey, Layer.fresh(SigningKey.Default)), (k) => k.jwk)
      const [a, b] = yield* Effect.all([start, start], { concurrency: 2 })
      const c = yield* start
      expect(a.kid).toBe(b.kid)
      expect(c).toEqual(a)
    }))
})
