/**
 * Console sessions, named keys and the webhook test event (issue 44), over HTTP against the whole app: a session is
 * made from a key only, stands for it (API, wallet-less reads, the event socket) only with the console's header or a
 * same-host Origin, and ends when signed out or when its key is rotated; keys are listed by prefix and name, never
 * shown; a test event is signed like a real delivery.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { expectError, rawRequest } from "../support/Raw.js"
import { openSocket, receiver, waitFor } from "../support/Realtime.js"
import { createAgent, describeApp, signUp } from "../support/TestApp.js"

const cookieOf = (setCookie: string | undefined) => {
  expect(setCookie).toBeDefined()
  const m = /shoal_session=([^;]*)/.exec(setCookie!)
  expect(m).not.toBeNull()
  return `shoal_session=${m![1]}`
}

const asConsole = (cookie: string, extra: Record<string, string> = {}) => ({
  headers: { cookie, "x-shoal-console": "1", ...extra }
})

describeApp({ WEBHOOK_ALLOW_PRIVATE: "true" })("console sessions, named keys, the webhook test", (it) => {
  it.scoped("a session from a key: HttpOnly SameSite=Strict cookie, the console header required, ended by sign-out", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const made = yield* rawRequest("POST", "/api/account/session", { key: human.api_key })
      expect(made.status).toBe(201)
      expect(made.body).toMatchObject({ status: "success", handle: human.user.handle })
      const setCookie = made.headers["set-cookie"]!
      expect(setCookie).toMatch(/HttpOnly/i)
      expect(setCookie).toMatch(/SameSite=Strict/i)
      expect(setCookie).toMatch(/Path=\//)
      expect(setCookie).toMatch(/Max-Age=2592000/)
      expect(setCookie).not.toContain(human.api_key)
      const cookie = cookieOf(setCookie)

      // the cookie with the console's header is the account, for reads and writes, under its rate limit
      const me = yield* rawRequest("GET", "/api/agent/me", asConsole(cookie))
      expect(me.status).toBe(200)
      expect(me.body.user.id).toBe(human.user.id)
      expect(me.headers["ratelimit-limit"]).toBeDefined()
      const patched = yield* rawRequest("PATCH", "/api/agent/profile", {
        ...asConsole(cookie),
        body: JSON.stringify({ bio: "set through the console" })
      })
      expect(patched.status).toBe(200)
      expect((yield* rawRequest("GET", "/api/agent/me", { key: human.api_key })).body.user.bio).toBe(
        "set through the console"
      )
      expect((yield* rawRequest("GET", "/api/account/inbox", asConsole(cookie))).status).toBe(200)

      // without the header (a form or an image of another site) or from another site's page, the cookie counts for
      // nothing
      expectError(yield* rawRequest("GET", "/api/agent/me", { headers: { cookie } }), 401, "unauthorized")
      expectError(
        yield* rawRequest("PATCH", "/api/agent/profile", { headers: { cookie }, body: JSON.stringify({ bio: "x" }) }),
        401,
        "unauthorized"
      )
      expectError(
        yield* rawRequest("GET", "/api/agent/me", asConsole(cookie, { origin: "https://evil.example" })),
        401,
        "unauthorized"
      )
      // a session does not make sessions: only a key does
      expectError(yield* rawRequest("POST", "/api/account/session", asConsole(cookie)), 401, "unauthorized")

      // the event socket takes the cookie with an Origin of this host, not of another
      const socket = yield* openSocket({ headers: { cookie, origin: "http://127.0.0.1" } })
      const ready = yield* socket.ready()
      expect(ready.type).toBe("ready")
      const foreign = yield* openSocket({ headers: { cookie, origin: "https://evil.example" } })
      yield* waitFor("the refusal", () => foreign.rejected ?? foreign.closed)
      expect(foreign.rejected?.status).toBe(401)

      // a socket opened with the key itself, beside the cookie's
      const keyed = yield* openSocket({ key: human.api_key })
      yield* keyed.ready()

      // signing out ends it (and clears the cookie) and closes the socket the cookie opened, not the key's; a
      // second sign-out has nothing to end
      const out = yield* rawRequest("DELETE", "/api/account/session", { headers: { cookie } })
      expect(out.status).toBe(200)
      const closed = yield* socket.waitClosed()
      expect(closed.code).toBe(4401)
      expect(closed.reason).toMatch(/session ended/)
      expect(keyed.closed).toBeUndefined()
      expect(out.body).toEqual({ status: "success", ended: true })
      expect(out.headers["set-cookie"]).toMatch(/shoal_session=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/i)
      expectError(yield* rawRequest("GET", "/api/agent/me", asConsole(cookie)), 401, "unauthorized")
      expect((yield* rawRequest("DELETE", "/api/account/session", { headers: { cookie } })).body.ended).toBe(false)
      // the key itself is untouched
      expect((yield* rawRequest("GET", "/api/agent/me", { key: human.api_key })).status).toBe(200)
    }))

  it.effect("rotating the key a session was made from ends it at once; the new key makes a new one", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const cookie = cookieOf(
        (yield* rawRequest("POST", "/api/account/session", { key: human.api_key })).headers["set-cookie"]
      )
      const other = cookieOf(
        (yield* rawRequest("POST", "/api/account/session", { key: human.api_key })).headers["set-cookie"]
      )
      expect(other).not.toBe(cookie)
      // rotated through the console session itself: every session of the old key ends with it
      const rotated = yield* rawRequest("POST", "/api/account/api-key", asConsole(cookie))
      expect(rotated.status).toBe(200)
      expectError(yield* rawRequest("GET", "/api/agent/me", asConsole(cookie)), 401, "unauthorized")
      expectError(yield* rawRequest("GET", "/api/agent/me", asConsole(other)), 401, "unauthorized")
      const fresh = cookieOf(
        (yield* rawRequest("POST", "/api/account/session", { key: rotated.body.api_key })).headers["set-cookie"]
      )
      expect((yield* rawRequest("GET", "/api/agent/me", asConsole(fresh))).body.user.id).toBe(human.user.id)
    }))

  it.effect("named keys: listed by prefix, never shown; a name survives rotation; only the owner reads an agent's", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const path = `/api/account/agents/${agent.agent.handle}/keys`
      const first = yield* rawRequest("GET", path, { key: human.api_key })
      expect(first.status).toBe(200)
      expect(first.body.keys).toHaveLength(1)
      const key = first.body.keys[0]
      expect(key).toMatchObject({ name: null, prefix: agent.api_key.slice(0, 11), revoked_at: null })
      expect(JSON.stringify(first.body)).not.toContain(agent.api_key)

      const named = yield* rawRequest("PATCH", `${path}/${key.id}`, {
        key: human.api_key,
        body: JSON.stringify({ name: "  production  " })
      })
      expect(named.status).toBe(200)
      expect(named.body.key).toMatchObject({ id: key.id, name: "production" })

      // a rotation: the old key revoked at once, the new one live and still named
      const rotated = yield* rawRequest("POST", `/api/account/agents/${agent.agent.handle}/api-key`, {
        key: human.api_key
      })
      expect(rotated.status).toBe(200)
      expectError(yield* rawRequest("GET", "/api/agent/me", { key: agent.api_key }), 401, "unauthorized")
      const after = (yield* rawRequest("GET", path, { key: human.api_key })).body.keys
      expect(after).toHaveLength(2)
      expect(after[0]).toMatchObject({
        name: "production",
        prefix: rotated.body.api_key.slice(0, 11),
        revoked_at: null
      })
      expect(after[1]).toMatchObject({ id: key.id, name: "production" })
      expect(after[1].revoked_at).not.toBeNull()

      // the agent reads its own keys; another human reads none of them; an unknown key id is a 404
      const own = yield* rawRequest("GET", "/api/account/keys", { key: rotated.body.api_key })
      expect(own.body.handle).toBe(agent.agent.handle)
      expect(own.body.keys.map((k: any) => [k.name, k.revoked_at === null])).toEqual([["production", true], [
        "production",
        false
      ]])
      const stranger = yield* signUp()
      expectError(yield* rawRequest("GET", path, { key: stranger.api_key }), 403, "forbidden")
      expectError(
        yield* rawRequest("PATCH", `/api/account/keys/${key.id}`, {
          key: stranger.api_key,
          body: JSON.stringify({ name: "mine" })
        }),
        404,
        "not_found"
      )
      // null removes the name
      const unnamed = yield* rawRequest("PATCH", `/api/account/keys/${after[0].id}`, {
        key: rotated.body.api_key,
        body: JSON.stringify({ name: null })
      })
      expect(unnamed.body.key.name).toBeNull()
    }))

  it.scoped("a test event: one signed webhook.test delivery, answered with what the receiver did, not logged", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      expectError(yield* rawRequest("POST", "/api/agent/webhooks/test", { key: human.api_key }), 422, "unprocessable")
      let answer = 204
      const hook = yield* receiver(() => answer)
      yield* rawRequest("PATCH", "/api/agent/profile", {
        key: human.api_key,
        body: JSON.stringify({ webhook_url: hook.url })
      })
      const { secret } = (yield* rawRequest("POST", "/api/account/webhook-secret", { key: human.api_key })).body
      const sent = yield* rawRequest("POST", "/api/agent/webhooks/test", { key: human.api_key })
      expect(sent.status).toBe(200)
      expect(sent.body).toMatchObject({
        status: "success",
        delivered: true,
        url: hook.url,
        status_code: 204,
        error: null
      })
      const got = hook.requests.find((r) => r.headers["webhook-id"] === sent.body.event_id)!
      expect(got.headers["x-service-event"]).toBe("webhook.test")
      expect(JSON.parse(got.body)).toMatchObject({ id: sent.body.event_id, type: "webhook.test" })
      // signed as Standard Webhooks: HMAC-SHA256 of id.timestamp.body with the secret's bytes
      const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
        .update(`${sent.body.event_id}.${got.headers["webhook-timestamp"]}.${got.body}`)
        .digest("base64")
      expect(got.headers["webhook-signature"]).toBe(`v1,${expected}`)

      answer = 500
      const failed = (yield* rawRequest("POST", "/api/agent/webhooks/test", { key: human.api_key })).body
      expect(failed).toMatchObject({ delivered: false, status_code: 500, error: "HTTP 500" })
      const log = (yield* rawRequest("GET", "/api/agent/webhooks/deliveries", { key: human.api_key })).body.deliveries
      expect(log.filter((d: any) => d.event_type === "webhook.test")).toEqual([])
    }))
})
