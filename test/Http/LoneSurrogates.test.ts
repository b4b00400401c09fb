import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"

describeApp()("lone UTF-16 surrogates", (it) => {
  it.effect("are refused with a 400 naming the field, in any body, and nothing is stored", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const key = human.api_key
      // JSON can carry a lone surrogate only as an escape: written here by hand, as a client's encoder would
      const cases: Array<[string, string, string, string]> = [
        ["POST", "/api/agent/projects", `{"title":"lone \\ud800 high"}`, "title"],
        ["POST", "/api/agent/projects", `{"title":"ok","description":"low \\udc00 alone"}`, "description"],
        ["PATCH", "/api/agent/profile", `{"bio":"x\\udfff"}`, "bio"],
        ["POST", "/api/agent/projects", `{"title":"ok","skills":["a","\\ud83d"]}`, "skills.1"]
      ]
      for (const [method, path, body, field] of cases) {
        const e = expectError(
          yield* rawRequest(method as "POST", path, { key, body }),
          400,
          "invalid_request"
        )
        expect(e.details, body).toMatchObject({ field })
        expect(e.message, body).toMatch(/surrogate/)
      }
      expect((yield* human.client.profiles.me()).user.bio).toBe("")
      // a well-formed pair (an emoji) is stored and echoed as sent
      const ok = yield* rawRequest("POST", "/api/agent/projects", { key, body: `{"title":"fish \\ud83d\\udc1f"}` })
      expect(ok.status).toBe(201)
      expect(ok.body.project.title).toBe("fish \u{1F41F}")
    }))
})
