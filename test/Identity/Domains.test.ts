import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { createAgent, signUp, TestApp, uniqueHandle } from "../support/TestApp.js"

/** A tld no other test uses (tlds are unique across accounts, and a PostgreSQL test database is shared). */
const uniqueTld = () => uniqueHandle("t").replace(/[^a-z0-9]/g, "")

const patch = (key: string, tld: string, body: unknown) =>
  rawRequest("PATCH", `/api/agent/domains/${tld}`, { key, body: JSON.stringify(body) })

layer(TestApp())("naming-system domain settings", (it) => {
  it.effect("PATCH sets the mode and redirect_url of the tld the caller's identity.hns names; GET lists them", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const tld = uniqueTld()
      // a Handshake name may be written with its trailing slash, in any case
      yield* agent.client.profiles.updateProfile({ payload: { identity: { hns: `${tld.toUpperCase()}/` } } })
      const set = yield* agent.client.domains.setDomain({
        path: { tld: tld.toUpperCase() },
        payload: { domain_mode: "redirect", redirect_url: "https://example.com/me" }
      })
      expect(set).toEqual({
        status: "success",
        domain: { tld, mode: "redirect", redirect_url: "https://example.com/me" }
      })
      // the whole setting is replaced: a mode without redirect_url clears it
      const changed = yield* agent.client.domains.setDomain({ path: { tld }, payload: { domain_mode: "profile" } })
      expect(changed.domain).toEqual({ tld, mode: "profile", redirect_url: "" })
      const listed = yield* agent.client.domains.listDomains()
      expect(listed.domains.map((d) => [d.tld, d.mode])).toEqual([[tld, "profile"]])
      expect((yield* human.client.domains.listDomains()).domains).toEqual([])
    }))

  it.effect("a tld the caller's identity.hns does not name is a 403 saying to set identity.hns first", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const tld = uniqueTld()
      const none = expectError(yield* patch(human.api_key, tld, { domain_mode: "profile" }), 403, "forbidden")
      expect(none.message).toContain("identity.hns")
      // a name under the tld is not the tld: owning sub.tld does not give tld
      yield* human.client.profiles.updateProfile({ payload: { identity: { hns: `sub.${tld}` } } })
      expectError(yield* patch(human.api_key, tld, { domain_mode: "profile" }), 403, "forbidden")
      yield* human.client.profiles.updateProfile({ payload: { identity: { hns: `${tld}x` } } })
      expectError(yield* patch(human.api_key, tld, { domain_mode: "profile" }), 403, "forbidden")
      expect((yield* human.client.domains.listDomains()).domains).toEqual([])
    }))

  it.effect("a tld belongs to one account: another whose hns names it too gets 409 until the holder lets go", () =>
    Effect.gen(function*() {
      const tld = uniqueTld()
      const alice = yield* signUp()
      const mallory = yield* signUp()
      for (const u of [alice, mallory]) {
        yield* u.client.profiles.updateProfile({ payload: { identity: { hns: tld } } })
      }
      expect((yield* patch(alice.api_key, tld, { domain_mode: "profile" })).status).toBe(200)
      const taken = expectError(
        yield* patch(mallory.api_key, tld, { domain_mode: "redirect", redirect_url: "https://evil.example/" }),
        409,
        "conflict"
      )
      expect(taken.message).toContain(tld)
      expect((yield* mallory.client.domains.listDomains()).domains).toEqual([])
      expect((yield* alice.client.domains.listDomains()).domains).toEqual([{ tld, mode: "profile", redirect_url: "" }])

      // the holder links another name: the setting it left behind no longer holds the tld
      yield* alice.client.profiles.updateProfile({ payload: { identity: { hns: uniqueTld() } } })
      expectError(yield* patch(alice.api_key, tld, { domain_mode: "custom" }), 403, "forbidden")
      expect((yield* patch(mallory.api_key, tld, { domain_mode: "custom" })).status).toBe(200)
      expect((yield* alice.client.domains.listDomains()).domains).toEqual([])
    }))

  it.effect("concurrent claims of one tld: one account gets it, the others 409; the database refuses a second holder", () =>
    Effect.gen(function*() {
      const tld = uniqueTld()
      const users = yield* Effect.all(Array.from({ length: 4 }, () => signUp()))
      for (const u of users) yield* u.client.profiles.updateProfile({ payload: { identity: { hns: tld } } })
      const results = yield* Effect.all(users.map((u) => patch(u.api_key, tld, { domain_mode: "profile" })), {
        concurrency: "unbounded"
      })
      expect(results.filter((r) => r.status === 200)).toHaveLength(1)
      for (const r of results.filter((r) => r.status !== 200)) expectError(r, 409, "conflict")
      // enforced by a unique index, not only by the service
      const sql = yield* SqlClient.SqlClient
      const holders = yield* sql<{ user_id: string }>`SELECT user_id FROM user_domains WHERE tld = ${tld}`
      expect(holders).toHaveLength(1)
      const other = users.find((u) => u.user.id !== holders[0]!.user_id)!
      const direct = yield* Effect.either(
        sql`INSERT INTO user_domains (user_id, tld, mode) VALUES (${other.user.id}, ${tld}, 'profile')`
      )
      expect(direct._tag).toBe("Left")
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
