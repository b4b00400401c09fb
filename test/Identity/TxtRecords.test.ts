import { describe, expect, it } from "@effect/vitest"
import { Identity } from "@shoal/domain"
import { txtRecords } from "../../src/Identity/TxtRecords.js"
import { makeNpub } from "./support.js"

describe("identity TXT values", () => {
  it("one key:value string per set field, with the spec's prefixes and bio for the info text", () => {
    const { npub } = makeNpub()
    const records = txtRecords({
      btc: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      nostr: npub,
      pfp: "https://example.com/a.png",
      link: "https://example.com",
      info: "builds things",
      gh: "octo"
    })
    expect(records).toEqual([
      "gh:octo",
      "link:https://example.com",
      "btc:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      "pfp:https://example.com/a.png",
      "bio:builds things",
      `nostr:${npub}`
    ])
  })

  it("never emits a value without its prefix, whatever the identity holds", () => {
    const full = Object.fromEntries(Identity.IdentityKeys.map((k) => [k, `value of ${k}`])) as Identity.Identity
    const records = txtRecords(full)
    expect(records).toHaveLength(Identity.IdentityKeys.length)
    for (const record of records) expect(record).toMatch(/^[a-z]+:value of [a-z]+$/)
    expect(records).toContain("bio:value of info")
    expect(records.some((r) => r.startsWith("info:"))).toBe(false)
  })

  it("a removed (null-patched) field leaves no record; empty values and control characters do not leak", () => {
    const before: Identity.Identity = {
      btc: "bc1qexample",
      pfp: "https://example.com/a.png",
      info: "a\nmulti-line\r\nbio"
    }
    const after = Identity.mergeIdentity(before, { btc: null })
    expect(txtRecords(after)).toEqual(["pfp:https://example.com/a.png", "bio:a multi-line bio"])
    expect(txtRecords(Identity.mergeIdentity(after, { pfp: null, info: null }))).toEqual([])
    expect(txtRecords({ info: "   " })).toEqual([])
    expect(txtRecords({})).toEqual([])
  })
})
