import { HttpClient, HttpClientRequest } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as Zlib from "node:zlib"
import { negotiate } from "../../src/Http/Compressed.js"
import { describeApp } from "../support/TestApp.js"

// the server reads the built page when its routes are built: build it first (a no-op when it is current)
const built = spawnSync(process.execPath, ["scripts/build-console.mjs", "--if-stale"], { encoding: "utf8" })
if (built.status !== 0) throw new Error(`the console did not build:\n${built.stderr}`)

/** The answer as sent, bytes not decoded. */
const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const res = yield* HttpClient.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeaders(headers)))
    return { status: res.status, headers: res.headers, body: Buffer.from(yield* res.arrayBuffer) }
  }).pipe(Effect.scoped)

const decode = (encoding: string | undefined, body: Buffer) =>
  encoding === "gzip" ? Zlib.gunzipSync(body) : encoding === "br" ? Zlib.brotliDecompressSync(body) : body

const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`

describeApp()("assets are sent compressed, with cache headers (issue 44)", (it) => {
  it.effect("gzip or brotli when Accept-Encoding allows, as they are without it; Vary and an ETag on each", () =>
    Effect.gen(function*() {
      const sizes: Array<string> = []
      for (const path of ["/console/console.js", "/console/style.css", "/", "/docs", "/skill.md"]) {
        const plain = yield* get(path)
        expect(plain.status, path).toBe(200)
        expect(plain.headers["content-encoding"], path).toBeUndefined()
        expect(plain.headers["vary"], path).toBe("Accept-Encoding")
        expect(plain.headers["etag"], path).toMatch(/^"[\w-]+"$/)
        for (const encoding of ["gzip", "br"]) {
          const packed = yield* get(path, { "accept-encoding": `${encoding}, deflate` })
          expect(packed.status, path).toBe(200)
          expect(packed.headers["vary"], path).toBe("Accept-Encoding")
          expect(packed.headers["content-type"], path).toBe(plain.headers["content-type"])
          if (plain.body.length < 1024) continue // too small to be worth it
          expect(packed.headers["content-encoding"], path).toBe(encoding)
          expect(packed.headers["etag"], path).not.toBe(plain.headers["etag"])
          expect(decode(encoding, packed.body).equals(plain.body), path).toBe(true)
          expect(packed.body.length, path).toBeLessThan(plain.body.length / 2)
          sizes.push(`${path} ${encoding}: ${kb(plain.body.length)} → ${kb(packed.body.length)}`)
        }
      }
      console.log(sizes.join("\n"))
      // a client that refuses an encoding does not get it
      const refused = yield* get("/console/console.js", { "accept-encoding": "br;q=0, gzip" })
      expect(refused.headers["content-encoding"]).toBe("gzip")
      expect(negotiate("identity")).toBe("identity")
      expect(negotiate("*")).toBe("br")
      expect(negotiate("gzip;q=0")).toBe("identity")
    }))

  it.effect("If-None-Match with the ETag is a 304 without a body, whatever the encoding", () =>
    Effect.gen(function*() {
      for (const path of ["/console/console.js", "/", "/docs", "/skill.md"]) {
        for (const accept of [{}, { "accept-encoding": "gzip" }] as Array<Record<string, string>>) {
          const first = yield* get(path, accept)
          const again = yield* get(path, { ...accept, "if-none-match": first.headers["etag"]! })
          expect(again.status, path).toBe(304)
          expect(again.body.length, path).toBe(0)
          expect(again.headers["etag"], path).toBe(first.headers["etag"])
          expect(again.headers["vary"], path).toBe("Accept-Encoding")
        }
        expect((yield* get(path, { "if-none-match": "\"something-else\"" })).status, path).toBe(200)
      }
    }))

  it.effect("the page is revalidated each time; it names the bundles by content hash, and those are kept for good", () =>
    Effect.gen(function*() {
      const page = yield* get("/")
      expect(page.headers["cache-control"]).toBe("no-cache")
      const html = page.body.toString("utf8")
      const js = html.match(/src="(\/console\/console\.js\?v=[\w-]+)"/)?.[1]
      const css = html.match(/href="(\/console\/style\.css\?v=[\w-]+)"/)?.[1]
      expect(js).toBeDefined()
      expect(css).toBeDefined()
      for (const path of [js!, css!]) {
        const res = yield* get(path, { "accept-encoding": "gzip" })
        expect(res.status).toBe(200)
        expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
      }
      // unversioned (or an old version): revalidated, so a new build is never hidden behind a cache
      expect((yield* get("/console/console.js")).headers["cache-control"]).toBe("no-cache")
      expect((yield* get("/console/console.js?v=old")).headers["cache-control"]).toBe("no-cache")
      expect((yield* get("/docs")).headers["cache-control"]).toBe("no-cache")
    }))
})
