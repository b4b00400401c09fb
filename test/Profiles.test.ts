import { expect } from "@effect/vitest"
import { bech32 } from "@scure/base"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { expectError, rawRequest } from "./support/Raw.js"
import { createAgent, describeApp, signUp, uniqueHandle } from "./support/TestApp.js"

const npub = () => bech32.encode("npub", bech32.toWords(randomBytes(32)))

describeApp()("profiles", (it) => {
  it.effect("GET /api/agent/profile has the spec's fields", () =>
    Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("prof"), "Pro File")
      const p = yield* human.client.profiles.getProfile()
      expect(p).toMatchObject({
        status: "success",
        id: human.user.id,
        handle: human.user.handle,
        name: "Pro File",
        bio: "",
        webhook_url: null
      })
    }))

  it.effect("PATCH profile round-trips display_name, bio, photo, webhook and identity keys (merge patch)", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const key = npub()
      const first = yield* agent.client.profiles.updateProfile({
        payload: {
          display_name: "Renamed",
          bio: "I build things",
          profile_photo_url: "https://example.com/me.png",
          webhook_url: "https://example.com/hook",
          identity: { x: "@renamed", nostr: key, btc: "bc1qexample", pfp: "https://example.com/p.png", mail: "a@b.co" }
        }
      })
      expect(first.display_name).toBe("Renamed")
      expect(first.user.identity).toEqual({
        x: "@renamed",
        nostr: key,
        btc: "bc1qexample",
        pfp: "https://example.com/p.png",
        mail: "a@b.co"
      })
      // null removes a key, absent keys stay as they were
      yield* agent.client.profiles.updateProfile({ payload: { identity: { x: null, gh: "renamed" } } })
      const me = yield* agent.client.profiles.me()
      expect(me.user.identity).toEqual({
        nostr: key,
        btc: "bc1qexample",
        pfp: "https://example.com/p.png",
        mail: "a@b.co",
        gh: "renamed"
      })
      expect(me.user.display_name).toBe("Renamed")
      expect(me.user.bio).toBe("I build things")
      expect(me.user.profile_photo_url).toBe("https://example.com/me.png")
      const profile = yield* agent.client.profiles.getProfile()
      expect(profile.webhook_url).toBe("https://example.com/hook")
      expect(profile.name).toBe("Renamed")
      // clearing the webhook
      yield* agent.client.profiles.updateProfile({ payload: { webhook_url: null } })
      expect((yield* agent.client.profiles.getProfile()).webhook_url).toBeNull()
    }))

  it.effect("GET /api/agent/me carries user with identity, svc_gems, gems_escrow and a heartbeat", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const me = yield* human.client.profiles.me()
      expect(me.status).toBe("success")
      expect(me.user).toMatchObject({ id: human.user.id, identity: {}, svc_gems: 0, gems_escrow: 0 })
      expect(me.user.last_heartbeat_at).not.toBeNull()
    }))

  it.effect("user search: 1 char is 400; matches by handle and by display name", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const tag = uniqueHandle("zq")
      const byHandle = yield* createAgent(human.api_key, tag, "Plain Name")
      const byName = yield* createAgent(human.api_key, uniqueHandle("other"), `Captain ${tag.toUpperCase()}`)
      const short = yield* rawRequest("GET", "/api/agent/users/search?q=z", { key: human.api_key })
      expectError(short, 400, "invalid_request")
      const missing = yield* rawRequest("GET", "/api/agent/users/search", { key: human.api_key })
      expectError(missing, 400, "invalid_request")
      const found = yield* human.client.profiles.searchUsers({ urlParams: { q: tag } })
      const ids = found.users.map((u) => u.id)
      expect(ids).toContain(byHandle.agent.id)
      expect(ids).toContain(byName.agent.id)
      expect(found.users[0]!.id).toBe(byHandle.agent.id)
      expect(found.users.find((u) => u.id === byHandle.agent.id)).toEqual({
        id: byHandle.agent.id,
        display_name: "Plain Name",
        handle: tag,
        user_type: "agent"
      })
      // LIKE wildcards are literal
      const wild = yield* human.client.profiles.searchUsers({ urlParams: { q: "%_" } })
      expect(wild.users).toEqual([])
    }))
})
