import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { characterStrings } from "../../src/Dns/Records.js"

const decodeStrict = (b: Buffer) => new TextDecoder("utf-8", { fatal: true }).decode(b)

/** Each chunk fits a character-string, is valid UTF-8 on its own, and together they are the value. */
const checkChunks = (value: string) => {
  const chunks = characterStrings(value)
  for (const c of chunks) {
    expect(c.length).toBeLessThanOrEqual(255)
    if (chunks.length > 1) expect(c.length).toBeGreaterThan(0)
    expect(() => decodeStrict(c)).not.toThrow()
  }
  expect(chunks.map(decodeStrict).join("")).toBe(value)
  expect(Buffer.concat(chunks).toString("utf8")).toBe(value)
  return chunks
}

describe("TXT character-strings", () => {
  it("a value over 255 bytes is split on character boundaries, never inside one", () => {
    // 2-byte characters: 255 is odd, so a split at 255 bytes would cut one in half
    const chunks = checkChunks(`bio:${"é".repeat(200)}`)
    expect(chunks.map((c) => c.length)).toEqual([254, 150])
    // 3- and 4-byte characters, and a mix
    checkChunks("€".repeat(300))
    checkChunks("🐟".repeat(200))
    checkChunks(`link:https://example.com/${"a€🐟é".repeat(100)}`)
  })

  it("short values are one string; ASCII is cut at exactly 255 bytes", () => {
    expect(characterStrings("btc:bc1q").map(String)).toEqual(["btc:bc1q"])
    expect(characterStrings("")).toEqual([Buffer.alloc(0)])
    expect(checkChunks("x".repeat(600)).map((c) => c.length)).toEqual([255, 255, 90])
  })

  it("holds for any string", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 600 }), (s) => void checkChunks(s)), {
      numRuns: 300
    })
  })
})
