import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { post } from "../../../src/Realtime/Webhooks/Sender.js"
import { isBlockedAddress, UrlGuard } from "../../../src/Realtime/Webhooks/UrlGuard.js"
import { expectError, rawRequest } from "../../support/Raw.js"
import { configLayer, describeApp, signUp } from "../../support/TestApp.js"

const guard = (allowPrivate: boolean) =>
  UrlGuard.Default.pipe(Layer.provide(configLayer({ WEBHOOK_ALLOW_PRIVATE: String(allowPrivate) })))

const check = (url: string, allowPrivate = false) =>
  Effect.flatMap(UrlGuard, (g) => g.check(url)).pipe(Effect.provide(guard(allowPrivate)))

// literal hosts only: no test depends on a DNS server
const refused: ReadonlyArray<readonly [string, string]> = [
  ["IPv4 loopback", "http://127.0.0.1/"],
  ["IPv4 loopback, hex and short form", "http://0x7f.1/"],
  ["IPv4 loopback, one decimal number", "http://2130706433/"],
  ["IPv4 private", "http://10.0.0.1/"],
  ["IPv4 private 172.16/12", "https://172.20.1.1:8443/x"],
  ["IPv4 private 192.168/16", "http://192.168.1.1/"],
  ["IPv4 metadata", "http://169.254.169.254/latest/meta-data"],
  ["IPv4 carrier-grade NAT", "http://100.64.0.1/"],
  ["IPv4 this network", "http://0.0.0.0/"],
  ["IPv4 broadcast", "http://255.255.255.255/"],
  ["IPv4 documentation", "http://192.0.2.1/"],
  ["IPv6 loopback", "http://[::1]/"],
  ["IPv6 unspecified", "http://[::]/"],
  ["IPv6 link-local", "http://[fe80::1]/"],
  ["IPv6 unique-local", "http://[fd00::1]/"],
  ["IPv6 site-local (deprecated)", "http://[fec0::1]/"],
  ["IPv6 multicast", "http://[ff02::1]/"],
  ["IPv6 documentation", "http://[2001:db8::1]/"],
  ["IPv4-compatible loopback", "http://[::127.0.0.1]/"],
  ["IPv4-compatible loopback, hex", "http://[::7f00:1]/"],
  ["IPv4-compatible private", "http://[::10.0.0.1]/"],
  ["IPv4-compatible metadata", "http://[::169.254.169.254]/"],
  ["IPv4-compatible public (deprecated form)", "http://[::8.8.8.8]/"],
  ["IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/"],
  ["IPv4-mapped private, hex", "http://[::ffff:a00:1]/"],
  ["IPv4-mapped metadata", "http://[::ffff:169.254.169.254]/"],
  ["IPv4-translated (RFC 6145) loopback", "http://[::ffff:0:127.0.0.1]/"],
  ["NAT64 64:ff9b::/96 loopback", "http://[64:ff9b::127.0.0.1]/"],
  ["NAT64 64:ff9b::/96 private", "http://[64:ff9b::10.0.0.1]/"],
  ["NAT64 64:ff9b::/96 metadata", "http://[64:ff9b::a9fe:a9fe]/"],
  ["NAT64 local-use 64:ff9b:1::/48", "http://[64:ff9b:1::a00:1]/"],
  ["NAT64 local-use 64:ff9b:1::/48, other prefix length", "http://[64:ff9b:1:a00:1::]/"],
  ["6to4 of loopback", "http://[2002:7f00:1::]/"],
  ["6to4 of private", "http://[2002:a00:1::1]/"],
  ["6to4 of metadata", "http://[2002:a9fe:a9fe::1]/"],
  ["Teredo (client 127.0.0.1 obfuscated)", "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/"],
  ["Teredo of a private server", "http://[2001:0:a00:1::1]/"],
  ["localhost", "http://localhost/"],
  ["localhost with a trailing dot", "http://localhost./"],
  ["a .localhost name", "http://foo.localhost/"],
  ["credentials", "http://user:pass@example.com/"],
  ["a user name alone", "https://user@example.com/hook"],
  ["an empty user with a password", "http://:secret@example.com/"]
]

const allowed: ReadonlyArray<readonly [string, string]> = [
  ["public IPv4", "http://8.8.8.8/hook"],
  ["public IPv4 with a port", "https://1.1.1.1:8443/hook"],
  ["public IPv6", "http://[2606:4700:4700::1111]/hook"],
  ["IPv4-mapped public", "http://[::ffff:8.8.8.8]/hook"]
]

describe("UrlGuard", () => {
  for (const [name, url] of refused) {
    it.effect(`refuses ${name}: ${url}`, () =>
      Effect.gen(function*() {
        const verdict = yield* check(url)
        expect(verdict.ok).toBe(false)
      }))
  }
  for (const [name, url] of allowed) {
    it.effect(`allows ${name}: ${url}`, () =>
      Effect.gen(function*() {
        const verdict = yield* check(url)
        expect(verdict).toEqual({ ok: true, addresses: expect.any(Array) })
      }))
  }

  it.effect("credentials are refused even with WEBHOOK_ALLOW_PRIVATE=true; private addresses then pass", () =>
    Effect.gen(function*() {
      const creds = yield* check("http://user:pass@127.0.0.1:9/", true)
      expect(creds.ok).toBe(false)
      if (!creds.ok) {
        expect(creds.reason).toMatch(/credentials/)
        expect(creds.reason).not.toContain("user:pass")
      }
      expect((yield* check("http://127.0.0.1:9/", true)).ok).toBe(true)
    }))

  it("isBlockedAddress judges the address a socket reports, with or without a zone", () => {
    expect(isBlockedAddress("::ffff:127.0.0.1")).toBe(true)
    expect(isBlockedAddress("::ffff:93.184.216.34")).toBe(false)
    expect(isBlockedAddress("fe80::1%eth0")).toBe(true)
    expect(isBlockedAddress("::7f00:1")).toBe(true)
    expect(isBlockedAddress("64:ff9b::808:808")).toBe(true)
    expect(isBlockedAddress("not an address")).toBe(true)
    expect(isBlockedAddress("93.184.216.34")).toBe(false)
  })
})

/** A local receiver that counts what reaches it. */
const receiver = Effect.acquireRelease(
  Effect.async<{ readonly port: number; readonly hits: Array<string>; readonly server: Http.Server }>((resume) => {
    const hits: Array<string> = []
    const server = Http.createServer((req, res) => {
      hits.push(req.url ?? "")
      res.end("ok")
    })
    server.listen(
      0,
      "127.0.0.1",
      () => resume(Effect.succeed({ port: (server.address() as AddressInfo).port, hits, server }))
    )
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("Sender", () => {
  it.scoped("checks the address it actually connected to: a private literal never receives the request", () =>
    Effect.gen(function*() {
      const hook = yield* receiver
      const outcome = yield* post(`http://127.0.0.1:${hook.port}/hook`, {}, "{}", {
        allowPrivate: false,
        timeout: "5 seconds"
      })
      expect(outcome.status).toBeNull()
      expect(outcome.error).toMatch(/127\.0\.0\.1.*(private|loopback)/)
      expect(hook.hits).toEqual([])
    }))

  it.scoped("a name that resolves to a private address at delivery time (rebinding) is refused before sending", () =>
    Effect.gen(function*() {
      const hook = yield* receiver
      const outcome = yield* post(`http://localhost:${hook.port}/hook`, {}, "{}", {
        allowPrivate: false,
        timeout: "5 seconds"
      })
      expect(outcome.status).toBeNull()
      expect(outcome.error).toMatch(/private|loopback/)
      expect(hook.hits).toEqual([])
    }))

  it.scoped("with WEBHOOK_ALLOW_PRIVATE the same delivery goes through", () =>
    Effect.gen(function*() {
      const hook = yield* receiver
      const outcome = yield* post(`http://127.0.0.1:${hook.port}/hook`, {}, "{}", {
        allowPrivate: true,
        timeout: "5 seconds"
      })
      expect(outcome).toEqual({ status: 200, error: null })
      expect(hook.hits).toEqual(["/hook"])
    }))
})

describeApp()("webhook_url on PATCH /api/agent/profile", (it) => {
  it.effect("credentials and IPv6 forms embedding a private IPv4 are a 400 naming webhook_url; nothing is stored", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      for (
        const url of [
          "http://user:pass@example.com/hook",
          "http://[::127.0.0.1]/",
          "http://[::ffff:10.0.0.1]/",
          "http://[64:ff9b::169.254.169.254]/",
          "http://[64:ff9b:1::a00:1]/",
          "http://[2002:c0a8:101::1]/",
          "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/"
        ]
      ) {
        const res = yield* rawRequest("PATCH", "/api/agent/profile", {
          key: human.api_key,
          body: JSON.stringify({ webhook_url: url })
        })
        const error = expectError(res, 400, "invalid_request")
        expect(error.details, url).toEqual({
          field: "webhook_url",
          issues: [{ field: "webhook_url", message: expect.any(String) }]
        })
        expect(error.message, url).toContain("webhook_url")
        expect(res.text, url).not.toContain("pass@")
      }
      expect((yield* human.client.profiles.getProfile()).webhook_url).toBeNull()
    }))
})
