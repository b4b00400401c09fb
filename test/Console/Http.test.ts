import { HttpClient } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { describeWallet, WalletUrl } from "../Wallet/support.js"

// the server reads the built page when its routes are built: build it first (a no-op when it is current)
const built = spawnSync(process.execPath, ["scripts/build-console.mjs", "--if-stale"], { encoding: "utf8" })
if (built.status !== 0) throw new Error(`the console did not build:\n${built.stderr}`)

const get = (path: string) =>
  Effect.gen(function*() {
    const res = yield* HttpClient.get(path)
    return { status: res.status, headers: res.headers, text: yield* res.text }
  })

describeWallet({ WALLET_PORT: "18081" })("the console's page", (it) => {
  it.effect("GET / and every /console/<page> answer the page, with the wallet's port and a same-host policy", () =>
    Effect.gen(function*() {
      for (const path of ["/", "/console", "/console/", "/console/inbox", "/console/settings/agents"]) {
        const page = yield* get(path)
        expect(page.status, path).toBe(200)
        expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
        expect(page.text).toContain("<meta name=\"shoal-wallet-port\" content=\"18081\">")
        expect(page.text).toMatch(/src="\/console\/console\.js\?v=[\w-]+"/)
        const csp = page.headers["content-security-policy"]!
        expect(csp).toContain("default-src 'self'")
        expect(csp).toMatch(
          /connect-src 'self' ws:\/\/127\.0\.0\.1:\d+ wss:\/\/127\.0\.0\.1:\d+ http:\/\/127\.0\.0\.1:18081 /
        )
      }
    }))

  it.effect("serves the bundle and the stylesheet built from TypeScript; an unknown file is a 404", () =>
    Effect.gen(function*() {
      const js = yield* get("/console/console.js")
      expect(js.status).toBe(200)
      expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8")
      // bundled, nothing imported from elsewhere at run time
      expect(js.text).not.toMatch(/\bimport\s*\(?\s*["']https?:/)
      expect(js.text.length).toBeGreaterThan(10_000)
      const css = yield* get("/console/style.css")
      expect(css.headers["content-type"]).toBe("text/css; charset=utf-8")
      expect(css.text).not.toContain("@import")
      expect((yield* get("/console/old-bundle.js")).status).toBe(404)
      expect((yield* get("/console/../package.json")).status).not.toBe(200)
    }))

  it.effect("the wallet API lets the console's origin call it with a key, and no other origin", () =>
    Effect.gen(function*() {
      const wallet = yield* WalletUrl
      const preflight = (origin: string) =>
        Effect.promise(() =>
          fetch(`${wallet}/api/gems/award`, {
            method: "OPTIONS",
            headers: {
              origin,
              "access-control-request-method": "POST",
              "access-control-request-headers": "authorization, content-type, idempotency-key"
            }
          })
        )
      // PORT is unset here: the console is the agent API at its default address
      const ok = yield* preflight("http://127.0.0.1:8080")
      expect(ok.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:8080")
      expect(ok.headers.get("access-control-allow-headers")).toContain("idempotency-key")
      const local = yield* preflight("http://localhost:8080")
      expect(local.headers.get("access-control-allow-origin")).toBe("http://localhost:8080")
      const other = yield* preflight("https://evil.example")
      expect(other.headers.get("access-control-allow-origin")).toBeNull()
      // an error answer carries the header too, or the page could not read why it failed
      const refused = yield* Effect.promise(() =>
        fetch(`${wallet}/api/gems/balance`, { headers: { origin: "http://127.0.0.1:8080" } })
      )
      expect(refused.status).toBe(401)
      expect(refused.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:8080")
    }))
})
