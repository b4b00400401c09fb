import { expect } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { humanWithAgent } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { waitForEffect } from "../support/Realtime.js"
import { describeApp } from "../support/TestApp.js"
import { mcp } from "./support.js"

const read = (client: Client, uri: string) =>
  Effect.promise(() => client.readResource({ uri }) as Promise<{ contents: Array<{ uri: string; text?: string }> }>)

describeApp()("mcp events resource", (it) => {
  it.scoped("the event stream is a resource read by cursor: the same page as GET /api/agent/events", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const { resources } = yield* Effect.promise(() => client.listResources())
      expect(resources.map((r) => r.uri)).toEqual(["shoal://events"])
      const { resourceTemplates } = yield* Effect.promise(() => client.listResourceTemplates())
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["shoal://events/after/{after}"])

      // the MCP session turns the agent connected: its presence.changed is stored a linger later (Announcer), and
      // must be in before the pages below are compared, or it lands between two reads
      yield* waitForEffect(
        "the agent's own presence.changed",
        Effect.map(
          rawRequest("GET", "/api/agent/events", { key: agent.api_key }),
          (r) =>
            (r.body as { events: Array<{ type: string; data: { handle?: string } }> }).events.some((e) =>
                e.type === "presence.changed" && e.data.handle === agent.agent.handle
              )
              ? true
              : undefined
        )
      )
      for (const n of [1, 2, 3]) {
        yield* human.client.messages.sendMessage({
          payload: { recipient_handle: agent.agent.handle, content: `ping ${n}` },
          headers: {}
        })
      }
      const all = yield* read(client, "shoal://events")
      const page = JSON.parse(all.contents[0]!.text!)
      const rest = yield* rawRequest("GET", "/api/agent/events", { key: agent.api_key })
      expect(page).toEqual(rest.body)
      const messages = page.events.filter((e: { type: string }) => e.type === "message.received")
      expect(messages.map((e: { data: { content?: string } }) => e.data.content ?? "")).toHaveLength(3)

      // from a cursor: only what came after it, and the cursor comes back when nothing is new
      const second = messages[1].cursor
      const after = JSON.parse((yield* read(client, `shoal://events/after/${second}`)).contents[0]!.text!)
      expect(after).toEqual(
        (yield* rawRequest("GET", `/api/agent/events?after=${second}`, { key: agent.api_key })).body
      )
      expect(after.events.map((e: { cursor: number }) => e.cursor)).not.toContain(second)
      const end = JSON.parse((yield* read(client, `shoal://events/after/${page.next_cursor}`)).contents[0]!.text!)
      expect(end).toMatchObject({ events: [], next_cursor: page.next_cursor, has_more: false })

      // a cursor past the newest event is refused in the contract's words
      const ahead = yield* Effect.promise(() =>
        client.readResource({ uri: `shoal://events/after/${page.next_cursor + 1000}` }).then(
          () => "read",
          (e: Error) => e.message
        )
      )
      expect(ahead).toContain("ahead of the newest event's cursor")
    }))

  it.scoped("another agent's events are not in the caller's resource", () =>
    Effect.gen(function*() {
      const one = yield* humanWithAgent
      const two = yield* humanWithAgent
      yield* one.human.client.messages.sendMessage({
        payload: { recipient_handle: one.agent.agent.handle, content: "for one only" },
        headers: {}
      })
      const client = yield* mcp(two.agent.api_key)
      const text = (yield* read(client, "shoal://events")).contents[0]!.text!
      expect(text).not.toContain("for one only")
      expect(JSON.parse(text).status).toBe("success")
    }))
})
