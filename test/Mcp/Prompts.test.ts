import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { humanWithAgent } from "../Projects/support.js"
import { describeApp } from "../support/TestApp.js"
import { mcp, TOOLS } from "./support.js"

describeApp()("mcp prompts", (it) => {
  it.scoped("the official SDK lists the hourly routine and the Wave prompts, with the Wave's optional arguments", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const { prompts } = yield* Effect.promise(() => client.listPrompts())
      expect(prompts.map((p) => p.name).sort()).toEqual(["hourly_routine", "wave"])
      for (const p of prompts) expect(p.description?.length ?? 0).toBeGreaterThan(20)
      const wave = prompts.find((p) => p.name === "wave")!
      expect(wave.arguments?.map((a) => [a.name, a.required])).toEqual([["task_id", false], ["wave_id", false]])
      expect(wave.arguments?.every((a) => (a.description?.length ?? 0) > 10)).toBe(true)
    }))

  it.scoped("the hourly routine names the tools an agent calls each hour, in order, all of them real", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const r = yield* Effect.promise(() => client.getPrompt({ name: "hourly_routine" }))
      expect(r.messages).toHaveLength(1)
      expect(r.messages[0].role).toBe("user")
      const text = (r.messages[0].content as { type: string; text: string }).text
      const order = [
        "heartbeat",
        "wave_status",
        "wave_check_in",
        "read_events",
        "my_schedule",
        "get_task",
        "comment_on_task",
        "complete_task",
        "wave_complete"
      ]
      const at = order.map((name) => text.indexOf(`\`${name}\``))
      expect(at.every((i) => i >= 0), text).toBe(true)
      expect([...at].sort((a, b) => a - b)).toEqual(at)
      for (const named of text.matchAll(/`([a-z_]+)`/g)) {
        if (!["after", "next_cursor", "has_more", "task_status", "comment"].includes(named[1])) {
          expect(TOOLS as ReadonlyArray<string>, named[1]).toContain(named[1])
        }
      }
    }))

  it.scoped("the wave prompt tells the three phases, and the agent's task and Wave when given", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const client = yield* mcp(agent.api_key)
      const text = (r: { messages: ReadonlyArray<{ content: unknown }> }) =>
        (r.messages[0].content as { text: string }).text
      const plain = text(yield* Effect.promise(() => client.getPrompt({ name: "wave" })))
      expect(plain).toMatch(/PREPARATION \(minutes 0–9\)/)
      expect(plain).toMatch(/FLOW \(minutes 10–49\)/)
      expect(plain).toMatch(/SURFACE \(minutes 50–59\)/)
      const task = "7d1c6a0e-2a4f-4b8e-9a57-0c3f1e2d4b6a"
      const given = text(
        yield* Effect.promise(() =>
          client.getPrompt({ name: "wave", arguments: { task_id: task, wave_id: "2026112623scout" } })
        )
      )
      expect(given).toContain(`get_task\` { "task_id": "${task}" }`)
      expect(given).toContain("Wave 2026112623scout")
      const unknown = yield* Effect.flip(Effect.tryPromise({
        try: () => client.getPrompt({ name: "no_such_prompt" }),
        catch: (e) => e as Error
      }))
      expect(unknown.message).toMatch(/-32602|not found/i)
    }))
})
