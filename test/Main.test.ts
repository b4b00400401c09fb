import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as ShoalClient from "@shoal/client"
import { Effect, Layer } from "effect"
import { freePort } from "../bench/support.js"
import { Program } from "../src/main.js"
import { configLayer } from "./support/TestApp.js"
import { TestDatabase } from "./support/TestDatabase.js"

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

const call = (url: string, init: RequestInit & { key?: string } = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const headers = new Headers(init.headers)
    if (init.key !== undefined) headers.set("authorization", `Bearer ${init.key}`)
    if (init.body !== undefined) headers.set("content-type", "application/json")
    const res = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(10_000) })
    const text = await res.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // HTML (docs)
    }
    return { status: res.status, headers: res.headers, body }
  })

const waitUp = (url: string) =>
  Effect.promise(async () => {
    const until = Date.now() + 60_000
    while (Date.now() < until) {
      try {
        if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok) return
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error(`${url} did not come up`)
  })

describe("the composed program", () => {
  it.live(
    "serves the agent API and the wallet on their own ports, with one key cache and one rate limit",
    () =>
      Effect.gen(function*() {
        const [agentPort, walletPort] = yield* Effect.promise(() => Promise.all([freePort(), freePort()]))
        const agent = `http://127.0.0.1:${agentPort}`
        const wallet = `http://127.0.0.1:${walletPort}`
        const config = {
          HOST: "127.0.0.1",
          PORT: String(agentPort),
          WALLET_PORT: String(walletPort),
          DNS_PORT: "0",
          RATE_LIMIT_PER_MINUTE: "8"
        }
        yield* Layer.launch(Program("all", TestDatabase)).pipe(
          Effect.provide(configLayer(config)),
          Effect.forkScoped
        )
        yield* waitUp(`${agent}/health`)
        yield* waitUp(`${wallet}/api/gems/settings/gem-conversion-rate`)

        // each port serves its own API, its own document and docs
        const rate = yield* call(`${wallet}/api/gems/settings/gem-conversion-rate`)
        expect(rate.body).toMatchObject({ status: "success", gem_to_usd: 0.52, currency: "USD" })
        expect((yield* call(`${agent}/api/gems/settings/gem-conversion-rate`)).status).toBe(404)
        expect((yield* call(`${wallet}/api/agent/me`)).status).toBe(404)
        expect((yield* call(`${agent}/openapi.json`)).body.info.title).toBe("Shoal agent API")
        expect((yield* call(`${wallet}/openapi.json`)).body.info.title).toBe("Shoal Gems wallet API")
        expect((yield* call(`${wallet}/docs`)).status).toBe(200)

        // a key made on one port works on the other
        const signUp = yield* call(`${agent}/api/accounts`, {
          method: "POST",
          body: JSON.stringify({ handle: `main${Date.now().toString(36)}`, display_name: "Main" })
        })
        expect(signUp.status).toBe(201)
        const oldKey: string = signUp.body.api_key
        expect((yield* call(`${agent}/api/agent/me`, { key: oldKey })).status).toBe(200)
        const balance = yield* call(`${wallet}/api/gems/balance`, { key: oldKey })
        expect(balance.body).toMatchObject({ status: "success", agent_id: signUp.body.user.id, balance: 0, pending: 0 })

        // rotated through the agent API: refused on both ports at once, the new key accepted on both
        const rotated = yield* call(`${agent}/api/account/api-key`, { method: "POST", key: oldKey })
        expect(rotated.status).toBe(200)
        const newKey: string = rotated.body.api_key
        const refused = yield* call(`${wallet}/api/gems/balance`, { key: oldKey })
        expect(refused.status).toBe(401)
        expect(refused.body.error.code).toBe("unauthorized")
        expect(refused.headers.get("www-authenticate")).toBe("Bearer")
        expect((yield* call(`${agent}/api/agent/me`, { key: oldKey })).status).toBe(401)
        // the typed wallet client sees the same: a decoded rate, and the old key's refusal as its error class
        const typed = yield* ShoalClient.makeWallet({ baseUrl: wallet, apiKey: oldKey }).pipe(
          Effect.provide(FetchHttpClient.layer)
        )
        const typedRate = yield* typed.settings.conversionRate().pipe(Effect.provide(FetchHttpClient.layer))
        expect(typedRate.gem_to_usd).toBe(0.52)
        const typedRefusal = yield* typed.account.balance().pipe(Effect.provide(FetchHttpClient.layer), Effect.flip)
        expect(typedRefusal._tag).toBe("Unauthorized")

        // one bucket per account across both ports, kept through the rotation (the calls above spent part of it):
        // alternating calls count it down to 0, then 429 on either
        let remaining = Number.POSITIVE_INFINITY
        for (let i = 0; remaining > 0; i++) {
          expect(i).toBeLessThan(8)
          const res = yield* call(i % 2 === 0 ? `${wallet}/api/gems/balance` : `${agent}/api/agent/me`, { key: newKey })
          expect(res.status).toBe(200)
          const left = Number(res.headers.get("ratelimit-remaining"))
          if (remaining !== Number.POSITIVE_INFINITY) expect(left).toBe(remaining - 1)
          else expect(left).toBeLessThan(7)
          remaining = left
        }
        const limitedWallet = yield* call(`${wallet}/api/gems/balance`, { key: newKey })
        expect(limitedWallet.status).toBe(429)
        expect(Number(limitedWallet.headers.get("retry-after"))).toBeGreaterThan(0)
        expect((yield* call(`${agent}/api/agent/me`, { key: newKey })).status).toBe(429)
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
