import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { createAgent, signUp, TestApp, uniqueHandle } from "../support/TestApp.js"
import { makeNpub } from "./support.js"

const nostrJson = (query: string) => rawRequest("GET", `/.well-known/nostr.json${query}`)

layer(TestApp())("NIP-05 /.well-known/nostr.json", (it) => {
  it.effect("a known name with a valid npub maps to its lowercase hex key, with CORS and no redirect", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key, uniqueHandle("nip"))
      const key = makeNpub()
      yield* agent.client.profiles.updateProfile({ payload: { identity: { nostr: key.npub } } })
      const res = yield* nostrJson(`?name=${agent.agent.handle}`)
      expect(res.status).toBe(200)
      expect(res.headers["access-control-allow-origin"]).toBe("*")
      expect(res.headers["content-type"]).toMatch(/^application\/json/)
      expect(res.body).toEqual({ names: { [agent.agent.handle]: key.hex } })
      expect(res.body.names[agent.agent.handle]).toMatch(/^[0-9a-f]{64}$/)
    }))

  it.effect("names match case-insensitively and come back as asked", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("case"))
      const key = makeNpub()
      yield* human.client.profiles.updateProfile({ payload: { identity: { nostr: key.npub } } })
      const upper = human.user.handle.toUpperCase()
      const res = yield* nostrJson(`?name=${upper}`)
      expect(res.body).toEqual({ names: { [upper]: key.hex } })
    }))

  it.effect("unknown names, users without a nostr key, impossible names and no name all answer {\"names\":{}}", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const queries = [`?name=${uniqueHandle("nobody")}`, `?name=${human.user.handle}`, "?name=_", "?name=a%20b", ""]
      for (const query of queries) {
        const res = yield* nostrJson(query)
        expect(res.status).toBe(200)
        expect(res.headers["access-control-allow-origin"]).toBe("*")
        expect(res.body).toEqual({ names: {} })
      }
    }))

  it.effect("removing the nostr key removes the name", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const key = makeNpub()
      yield* human.client.profiles.updateProfile({ payload: { identity: { nostr: key.npub } } })
      expect((yield* nostrJson(`?name=${human.user.handle}`)).body.names).toEqual({ [human.user.handle]: key.hex })
      yield* human.client.profiles.updateProfile({ payload: { identity: { nostr: null } } })
      expect((yield* nostrJson(`?name=${human.user.handle}`)).body).toEqual({ names: {} })
    }))

  it.effect("a browser's preflight on the public identity documents is a 204 with CORS headers", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const preflight = {
        origin: "https://client.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-requested-with"
      }
      for (
        const path of [
          "/.well-known/nostr.json",
          "/.well-known/nostr.json?name=alice",
          "/.well-known/shoal-keys.json",
          `/api/identity/${human.user.handle}`,
          `/api/identity/${uniqueHandle("ghost")}`
        ]
      ) {
        const res = yield* rawRequest("OPTIONS", path, { headers: preflight })
        try {
          expect(res.status).toBe(204)
          expect(res.headers["access-control-allow-origin"]).toBe("*")
          expect(res.headers["access-control-allow-methods"]).toBe("GET, OPTIONS")
          expect(res.headers["access-control-allow-headers"]?.toLowerCase()).toContain("x-requested-with")
          expect(Number(res.headers["access-control-max-age"])).toBeGreaterThan(0)
        } catch (e) {
          throw new Error(`OPTIONS ${path}: ${(e as Error).message}`)
        }
      }
      // without Access-Control-Request-Headers: a sensible list
      const plain = yield* rawRequest("OPTIONS", "/.well-known/nostr.json", {
        headers: { origin: "https://x.example" }
      })
      expect(plain.status).toBe(204)
      expect(plain.headers["access-control-allow-headers"]?.toLowerCase()).toContain("content-type")
      // only the public documents: the keyed API is not opened to other origins
      expectError(yield* rawRequest("OPTIONS", "/api/agent/profile", { headers: preflight }), 404, "not_found")
    }))

  it.effect("an error answer carries the CORS header too", () =>
    Effect.gen(function*() {
      const res = yield* nostrJson("?name=a&name=b")
      expectError(res, 400, "invalid_request")
      expect(res.headers["access-control-allow-origin"]).toBe("*")
    }))
})
