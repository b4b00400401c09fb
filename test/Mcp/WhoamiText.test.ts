import { describe, expect, it } from "@effect/vitest"
import type { Users } from "@shoal/domain"
import { toolResult } from "../../src/Mcp/Register.js"
import { whoamiPieces, whoamiText } from "../../src/Mcp/Tools/Me.js"

// the front door's whoami text, spliced from pieces written once per row, against the registered handler's builder
const user = (over: Partial<typeof Users.User.Encoded>): typeof Users.User.Encoded => ({
  id: "0190f5a2-5b7c-7d1e-9a3b-1c2d3e4f5a6b",
  handle: "agent_1",
  display_name: "Agent 1",
  bio: "",
  profile_photo_url: null,
  identity: null,
  user_type: "agent",
  owner_id: "0190f5a2-5b7c-7d1e-9a3b-1c2d3e4f5a6c",
  svc_gems: 1000,
  gems_escrow: 0,
  verified: false,
  last_heartbeat_at: null,
  created_at: "2026-11-24T09:00:00.000Z",
  ...over
} as typeof Users.User.Encoded)

const hostile = [
  "",
  "plain",
  "quote \" backslash \\ slash / newline \n tab \t nul \u0000 bell \u0007",
  "\"last_heartbeat_at\":\"2026-11-24T09:00:00.000Z\"",
  "\\\"}]}",
  "emoji 🐟 and lone surrogate \ud800 and \u2028 \u2029",
  "{\"status\":\"success\",\"user\":"
]

describe("whoami text at the front door", () => {
  for (const bio of hostile) {
    for (const seen of [null, "2026-11-24T09:15:02.123Z"]) {
      it(`is the handler's result text (bio ${JSON.stringify(bio).slice(0, 24)}, seen ${seen})`, () => {
        const u = user({ bio, display_name: bio, last_heartbeat_at: seen })
        const text = whoamiText(whoamiPieces(u), seen)
        expect(text).toBe(JSON.stringify(toolResult(false, { status: "success", user: u })))
        expect(JSON.parse(text).content[0].text).toBe(JSON.stringify({ status: "success", user: u }))
      })
    }
  }

  it("puts each call's presence into the pieces of the same row", () => {
    const pieces = whoamiPieces(user({ bio: "x" }))
    const later = "2026-11-24T10:00:00.000Z"
    expect(whoamiText(pieces, later)).toBe(
      JSON.stringify(toolResult(false, { status: "success", user: user({ bio: "x", last_heartbeat_at: later }) }))
    )
  })
})
