import { expect, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { createPublicKey, generateKeyPairSync, verify } from "node:crypto"
import { expectError, rawRequest } from "../support/Raw.js"
import { client, createAgent, signUp, TestApp, uniqueHandle } from "../support/TestApp.js"
import { canonical, makeNpub } from "./support.js"

/** Verifies a proof body offline, as a third party would: node:crypto and the published JWK only. */
const verifyProof = (body: any, keys: any) => {
  const jwk = keys.keys.find((k: any) => k.kid === body.proof.key_id)
  if (jwk === undefined) return false
  const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" })
  const { signature, ...unsignedProof } = body.proof
  const data = Buffer.from(canonical({ ...body, proof: unsignedProof }), "utf8")
  return verify(null, data, publicKey, Buffer.from(signature, "base64url"))
}

layer(TestApp())("identity proof (stored key)", (it) => {
  it.effect("GET /api/identity/<handle> is public, has the spec's shape and a signature the published key checks", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key, uniqueHandle("prf"), "Proof Agent")
      const { npub } = makeNpub()
      yield* agent.client.profiles.updateProfile({
        payload: { identity: { nostr: npub, btc: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", hns: "proofagent" } }
      })
      const res = yield* rawRequest("GET", `/api/identity/${agent.agent.handle.toUpperCase()}`)
      expect(res.status).toBe(200)
      expect(res.headers["access-control-allow-origin"]).toBe("*")
      expect(res.body).toMatchObject({
        status: "success",
        handle: agent.agent.handle,
        hns_handle: "proofagent",
        display_name: "Proof Agent",
        records: { nostr: npub, btc: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", hns: "proofagent" },
        proof: { issuer: "http://localhost:8080" }
      })
      expect(new Date(res.body.proof.timestamp).toISOString()).toBe(res.body.proof.timestamp)
      expect(res.body.proof.signature).toMatch(/^[A-Za-z0-9_-]{86}$/)

      const keys = yield* rawRequest("GET", "/.well-known/shoal-keys.json")
      expect(keys.status).toBe(200)
      expect(keys.body.keys).toHaveLength(1)
      expect(keys.body.keys[0]).toMatchObject({ kid: res.body.proof.key_id, kty: "OKP", crv: "Ed25519" })
      expect(verifyProof(res.body, keys.body)).toBe(true)
      // any change to the signed document breaks the signature
      expect(verifyProof({ ...res.body, display_name: "Someone Else" }, keys.body)).toBe(false)
      expect(verifyProof({ ...res.body, records: { ...res.body.records, btc: "bc1qevil" } }, keys.body)).toBe(false)
      expect(verifyProof({ ...res.body, proof: { ...res.body.proof, issuer: "https://evil" } }, keys.body)).toBe(false)
    }))

  it.effect("unset records and hns_handle are empty strings; the typed client decodes the proof", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("bare"), "Bare Human")
      const anon = yield* (yield* client()).identity.proof({ path: { handle: human.user.handle } })
      expect(anon.hns_handle).toBe("")
      expect(anon.records).toEqual({ nostr: "", btc: "", hns: "" })
      expect(anon.display_name).toBe("Bare Human")
    }))

  it.effect("an unknown or impossible handle is a JSON 404 (with the CORS header)", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("GET", `/api/identity/${uniqueHandle("ghost")}`)
      expectError(res, 404, "not_found")
      expect(res.headers["access-control-allow-origin"]).toBe("*")
      expectError(yield* rawRequest("GET", "/api/identity/x"), 404, "not_found")
      expectError(yield* rawRequest("GET", "/api/identity/no%20such%20user"), 404, "not_found")
    }))
})

const configured = generateKeyPairSync("ed25519")
const seed = configured.privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32)
const configuredX = configured.publicKey.export({ format: "jwk" }).x

layer(TestApp({ IDENTITY_SIGNING_KEY: seed.toString("base64url"), PUBLIC_URL: "https://id.example.org/" }))(
  "identity proof (IDENTITY_SIGNING_KEY and PUBLIC_URL from config)",
  (it) => {
    it.effect("the configured key signs and is the one published; the issuer is PUBLIC_URL; time is the Clock's", () =>
      Effect.gen(function*() {
        const human = yield* signUp()
        const keys = yield* rawRequest("GET", "/.well-known/shoal-keys.json")
        expect(keys.body.keys.map((k: any) => k.x)).toEqual([configuredX])
        const res = yield* rawRequest("GET", `/api/identity/${human.user.handle}`)
        expect(res.body.proof.issuer).toBe("https://id.example.org")
        // the server reads time from the Clock (here the suite's TestClock, which the app's loops keep us from moving)
        expect(res.body.proof.timestamp).toBe(new Date(yield* Clock.currentTimeMillis).toISOString())
        expect(verifyProof(res.body, keys.body)).toBe(true)
      }))
  }
)
