import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { createAgent, signUp, TestApp } from "../support/TestApp.js"

const patch = (key: string, tld: string, body: unknown) =>
  rawRequest("PATCH", `/api/agent/domains/${tld}`, { key, body: JSON.stringify(body) })

layer(TestApp())("naming-system domain settings", (it) => {
  it.effect("PATCH sets a tld's mode and redirect_url; GET lists the caller's domains only", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const set = yield* agent.client.domains.setDomain({
        path: { tld: "MyTld" },
        payload: { domain_mode: "redirect", redirect_url: "https://example.com/me" }
      })
      expect(set).toEqual({
        status: "success",
        domain: { tld: "mytld", mode: "redirect", redirect_url: "https://example.com/me" }
      })
      // the whole setting is replaced: a mode without redirect_url clears it
      const changed = yield* agent.client.domains.setDomain({
        path: { tld: "mytld" },
        payload: { domain_mode: "profile" }
      })
      expect(changed.domain).toEqual({ tld: "mytld", mode: "profile", redirect_url: "" })
      yield* agent.client.domains.setDomain({ path: { tld: "other-1" }, payload: { domain_mode: "custom" } })
      const listed = yield* agent.client.domains.listDomains()
      expect(listed.domains.map((d) => [d.tld, d.mode])).toEqual([["mytld", "profile"], ["other-1", "custom"]])
      expect((yield* human.client.domains.listDomains()).domains).toEqual([])
      // another user may keep settings for the same tld: they are per user
      const mine = yield* human.client.domains.setDomain({ path: { tld: "mytld" }, payload: { domain_mode: "custom" } })
      expect(mine.domain.mode).toBe("custom")
      expect((yield* agent.client.domains.listDomains()).domains[0].mode).toBe("profile")
    }))

  it.effect("bad input is a 400 naming the field: mode, missing or bad redirect_url, tld, unknown field", () =>
    Effect.gen(function*() {
      const { api_key: key } = yield* signUp()
      const detailsOf = (e: { details?: unknown }) => JSON.stringify(e.details)
      expect(detailsOf(expectError(yield* patch(key, "ok", { domain_mode: "mirror" }), 400, "invalid_request")))
        .toContain("domain_mode")
      expect(expectError(yield* patch(key, "ok", { domain_mode: "redirect" }), 400, "invalid_request").message)
        .toContain("redirect_url")
      expectError(yield* patch(key, "ok", { domain_mode: "redirect", redirect_url: null }), 400, "invalid_request")
      for (const url of ["ftp://example.com", "not a url", "", `https://example.com/${"x".repeat(2048)}`]) {
        const res = yield* patch(key, "ok", { domain_mode: "redirect", redirect_url: url })
        expect(detailsOf(expectError(res, 400, "invalid_request"))).toContain("redirect_url")
      }
      for (const tld of ["-bad", "bad-", "a_b", "a.b", "x".repeat(64), "%C3%A9"]) {
        expectError(yield* patch(key, tld, { domain_mode: "profile" }), 400, "invalid_request")
      }
      const unknown = yield* patch(key, "ok", { domain_mode: "profile", owner: "me" })
      expect(detailsOf(expectError(unknown, 400, "invalid_request"))).toContain("owner")
      expectError(yield* patch(key, "ok", {}), 400, "invalid_request")
      // nothing was stored by the refused requests
      expect((yield* rawRequest("GET", "/api/agent/domains", { key })).body.domains).toEqual([])
    }))

  it.effect("both calls need a key (401)", () =>
    Effect.gen(function*() {
      expectError(yield* rawRequest("GET", "/api/agent/domains"), 401, "unauthorized")
      expectError(
        yield* rawRequest("PATCH", "/api/agent/domains/abc", { body: JSON.stringify({ domain_mode: "profile" }) }),
        401,
        "unauthorized"
      )
    }))
})
