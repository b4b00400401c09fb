import { describe, expect, it } from "vitest"
import { iso } from "../../src/Waves/Phase.js"

describe("iso", () => {
  it("is Date's toISOString for any time, called in any order", () => {
    const now = Date.UTC(2026, 10, 27, 10, 36, 59, 999)
    const times = [
      0,
      -1,
      1,
      59_999,
      60_000,
      -60_000,
      -59_999,
      8.64e15,
      -8.64e15,
      now,
      now + 1,
      now - 1,
      now + 1,
      now + 60_000,
      Date.UTC(10_000, 0, 1),
      Date.UTC(-1, 11, 31, 23, 59, 59, 9)
    ]
    // spread over the years, and runs within one minute (the cached prefix)
    let seed = 42
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    for (let i = 0; i < 5_000; i++) times.push(Math.floor((2 * next() - 1) * 8.64e15 / (i % 2 === 0 ? 1 : 1e5)))
    for (let i = 0; i < 2_000; i++) times.push(now + Math.floor(next() * 120_000) - 60_000)
    for (const ms of times) expect(iso(ms), String(ms)).toBe(new Date(ms).toISOString())
  })

  it("truncates a fraction and throws for an invalid time, as Date does", () => {
    expect(iso(1_500.7)).toBe(new Date(1_500.7).toISOString())
    expect(iso(-1_500.7)).toBe(new Date(-1_500.7).toISOString())
    expect(() => iso(Number.NaN)).toThrow(RangeError)
    expect(() => iso(8.64e15 + 1)).toThrow(RangeError)
  })
})
