import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { PublicUrl } from "../../src/Identity/PublicUrl.js"

const publicUrl = (config: Record<string, string>) =>
  PublicUrl.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(config)))))

describe("PUBLIC_URL (the proofs' issuer and the _identity TXT)", () => {
  it.effect("defaults to where the agent API listens: HOST and PORT", () =>
    Effect.gen(function*() {
      expect(yield* publicUrl({})).toBe("http://localhost:8080")
      expect(yield* publicUrl({ PORT: "9090" })).toBe("http://localhost:9090")
      // the wildcard and loopback addresses are reached as localhost
      for (const HOST of ["127.0.0.1", "0.0.0.0", "::"]) {
        expect(yield* publicUrl({ HOST, PORT: "3000" })).toBe("http://localhost:3000")
      }
      expect(yield* publicUrl({ HOST: "agents.example.org", PORT: "3000" })).toBe("http://agents.example.org:3000")
      expect(yield* publicUrl({ HOST: "10.0.0.5" })).toBe("http://10.0.0.5:8080")
      expect(yield* publicUrl({ HOST: "fd00::5", PORT: "3000" })).toBe("http://[fd00::5]:3000")
      expect(yield* publicUrl({ HOST: "::1" })).toBe("http://[::1]:8080")
    }))

  it.effect("an explicit PUBLIC_URL wins, without its trailing slash; a bad one is refused", () =>
    Effect.gen(function*() {
      expect(yield* publicUrl({ PUBLIC_URL: "https://id.example.org/", PORT: "9090" })).toBe("https://id.example.org")
      expect(String(yield* Effect.flip(publicUrl({ PUBLIC_URL: "ftp://x" })))).toMatch(/absolute http\(s\) URL/)
    }))
})
