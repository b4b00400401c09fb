/**
 * The console in a real browser (Debian's chromium, driven by playwright-core) against a real Shoal process on a
 * fresh embedded database: what a human does there reaches the public API, and the API's answers (the old key
 * refused, the agent's balance) prove it. No request may leave 127.0.0.1. Screenshots of every page at 375 and
 * 1,440 px are written to a folder this test prints.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Page } from "playwright-core"
import { callAt, type ConsoleApp, hasChromium, startConsoleApp, WAIT } from "./support.js"

let app: ConsoleApp | undefined
const shots = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-console-screenshots-"))

const call = (path: string, key?: string, body?: unknown, url = app!.base) => callAt(url, path, key, body)

beforeAll(async () => {
  if (hasChromium) app = await startConsoleApp()
}, 120_000)

afterAll(async () => {
  await app?.stop()
  if (hasChromium) console.log(`console screenshots: ${shots}`)
})

const open = async () => {
  const context = await app!.browser.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  page.setDefaultTimeout(WAIT.timeout)
  page.on("request", (request) => {
    const url = new URL(request.url())
    if (url.hostname !== "127.0.0.1" && url.protocol !== "data:") app!.outside.push(request.url())
  })
  const problems: Array<string> = []
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()}`)
  })
  return { page, problems }
}

const go = async (page: Page, name: string) => {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name }).click()
  await page.waitForURL(`**/console/${name.toLowerCase()}`)
}

const screenshot = async (page: Page, name: string) => {
  for (const width of [375, 1440]) {
    await page.setViewportSize({ width, height: 900 })
    await page.screenshot({ path: Path.join(shots, `${name}-${width}.png`), fullPage: true })
  }
  await page.setViewportSize({ width: 1440, height: 900 })
}

describe.skipIf(!hasChromium)("the console in a browser", () => {
  it("signs up, manages agents and keys, decides requests and bounties, shows presence live", {
    timeout: 120_000
  }, async () => {
    const { page, problems } = await open()
    try {
      await journey(page, problems)
    } catch (e) {
      // what the page showed when it failed, for whoever reads the log
      await page.screenshot({ path: Path.join(shots, "failure.png"), fullPage: true }).catch(() => {})
      const text = await page.locator("main").innerText().catch(() => "")
      throw new Error(`${(e as Error).message}\n--- the page said:\n${text}\n--- problems: ${problems.join("\n")}`)
    } finally {
      await page.context().close()
    }
  })
})

const journey = async (page: Page, problems: Array<string>) => {
  {
    await page.goto(`${app!.base}/`)
    await page.getByRole("button", { name: "Create account" }).waitFor()
    await screenshot(page, "sign-in")

    // sign up: the key is shown once, and the tab is signed in with it
    await page.getByLabel("Handle").fill("alice")
    await page.getByLabel("Display name").fill("Alice")
    await page.getByRole("button", { name: "Create account" }).click()
    const humanKey = (await page.locator("[data-secret]").textContent({ timeout: WAIT.timeout }))!.trim()
    expect((await call("/api/agent/me", humanKey)).body.user.handle).toBe("alice")
    await page.getByRole("button", { name: "Continue to the console" }).click()
    await page.getByRole("heading", { name: "Fleet" }).waitFor()
    // signed in by a session: an HttpOnly, SameSite=Strict cookie the page cannot read; no key in the address or
    // in the page's storage
    expect(page.url()).not.toContain(humanKey)
    const stored = await page.evaluate(() => {
      const g = globalThis as any
      const all = (s: any): Array<string> => Array.from({ length: s.length }, (_, i) => s.getItem(s.key(i)) ?? "")
      return [...all(g.localStorage), ...all(g.sessionStorage), g.document.cookie as string]
    })
    expect(stored.some((v) => v.includes(humanKey))).toBe(false)
    expect(stored.some((v) => v.includes("shoal_session"))).toBe(false)
    const [cookie] = await page.context().cookies()
    expect(cookie).toMatchObject({ name: "shoal_session", httpOnly: true, sameSite: "Strict" })
    expect(cookie!.value).not.toContain(humanKey)
    // a new tab of the same browser is signed in too
    const tab = await page.context().newPage()
    await tab.goto(`${app!.base}/console/settings`)
    await tab.getByRole("heading", { name: "Account settings" }).waitFor()
    await tab.close()

    // create an agent: its key is shown once and works
    await go(page, "Settings")
    await page.getByLabel("Handle").fill("bot1")
    await page.getByLabel("Display name").fill("Bot One")
    await page.getByRole("button", { name: "Create agent" }).click()
    await page.getByRole("region", { name: "API key of @bot1" }).waitFor()
    const firstKey = (await page.locator("[data-secret]").textContent())!.trim()
    expect((await call("/api/agent/me", firstKey)).body.user.handle).toBe("bot1")

    // rotating asks first: declined, nothing happens and the key still works
    const asked: Array<string> = []
    page.once("dialog", (d) => {
      asked.push(d.message())
      void d.dismiss()
    })
    await page.getByRole("button", { name: "Rotate key of @bot1" }).click()
    await expect.poll(() => asked.length).toBe(1)
    expect(asked[0]).toMatch(/stops working at once/)
    expect((await call("/api/agent/me", firstKey)).status).toBe(200)
    expect(await page.getByRole("region", { name: "New API key of @bot1" }).count()).toBe(0)
    // from here on every confirmation (rotations, payouts) is accepted
    page.on("dialog", (d) => void d.accept())

    // rotate its key: a new one is shown, and the API refuses the old one at once
    await page.getByRole("button", { name: "Rotate key of @bot1" }).click()
    await page.getByRole("region", { name: "New API key of @bot1" }).waitFor()
    const botKey = (await page.locator("[data-secret]").textContent())!.trim()
    expect(botKey).not.toBe(firstKey)
    expect((await call("/api/agent/me", firstKey)).status).toBe(401)
    expect((await call("/api/agent/me", botKey)).status).toBe(200)
    await screenshot(page, "settings")

    // a stranger's agent writes to bot1: a message request for alice
    const stranger =
      (await call("/api/accounts", undefined, { handle: "mallory", display_name: "Mallory" })).body.api_key
    const strangerBot = (await call("/api/account/agents", stranger, { handle: "eve-bot", display_name: "Eve" })).body
      .api_key
    const sent = await call("/api/agent/message", strangerBot, { recipient_handle: "bot1", content: "hello from eve" })
    expect(sent.status).toBe(201)

    // a bounty task: alice funds it, bot1 completes it, it waits for alice's approval
    const project = (await call("/api/agent/projects", humanKey, { title: "Launch" })).body.project
    const task = (await call(`/api/agent/projects/${project.id}/tasks`, humanKey, {
      title: "Write the notes",
      assigned_to: "bot1",
      gem_bounty: 40
    })).body.task
    expect((await call(`/api/agent/tasks/${task.id}/complete`, botKey, { completion_note: "done" })).status).toBe(200)
    const before = (await call("/api/gems/balance", botKey, undefined, app!.wallet)).body
    expect(before).toMatchObject({ balance: 0, pending: 40 })

    await go(page, "Inbox")
    const request = page.locator("[data-request]").filter({ hasText: "hello from eve" })
    await request.waitFor()
    const bounty = page.locator(`[data-task="${task.id}"]`)
    await bounty.getByText("40 Gems at stake").waitFor()
    await screenshot(page, "inbox")

    await request.getByRole("button", { name: "Approve the message from @eve-bot" }).click()
    await request.waitFor({ state: "detached" })
    const delivered = (await call("/api/agent/messages", botKey)).body.messages
    expect(delivered.map((m: any) => m.content)).toContain("hello from eve")

    await bounty.getByRole("button", { name: /^Approve/ }).click()
    await bounty.waitFor({ state: "detached" })
    expect((await call("/api/gems/balance", botKey, undefined, app!.wallet)).body).toMatchObject({
      balance: 40,
      pending: 0
    })

    // Work: the project's task, alice's Gems, and an award that raises bot1's balance again
    await go(page, "Work")
    await page.locator(`tr[data-task="${task.id}"]`).getByText("completed").waitFor()
    await page.getByLabel("Agent").fill("bot1")
    await page.getByLabel("Amount (Gems)").fill("5")
    await page.getByRole("button", { name: "Award Gems" }).click()
    await page.getByText("Their balance is now 45 Gems.").waitFor()
    expect((await call("/api/gems/balance", botKey, undefined, app!.wallet)).body.balance).toBe(45)
    await screenshot(page, "work")

    // Fleet: a new agent that never called is offline; its heartbeat turns it online on the open page
    const quiet = (await call("/api/account/agents", humanKey, { handle: "bot2", display_name: "Bot Two" })).body
      .api_key
    await go(page, "Fleet")
    await page.evaluate(() => ((globalThis as any).notReloaded = true))
    const row = page.locator("tr[data-agent=\"bot2\"]")
    await row.locator("[data-presence=\"offline\"]").waitFor()
    await page.locator("[data-phase]").waitFor()
    expect(await page.locator(".countdown").textContent()).toMatch(/^Next phase in \d+:\d\d$/)
    expect((await call("/api/agent/heartbeat", quiet, {})).status).toBe(200)
    await row.locator("[data-presence=\"online\"]").waitFor()
    expect(await row.locator(".heartbeat").textContent()).not.toBe("never")
    expect(await page.evaluate(() => (globalThis as any).notReloaded)).toBe(true)
    await screenshot(page, "fleet")

    expect(problems).toEqual([])

    // an error of the API is shown in words where it happened (the browser logs the 409 itself)
    await go(page, "Settings")
    await page.getByLabel("Handle").fill("bot1")
    await page.getByLabel("Display name").fill("Again")
    await page.getByRole("button", { name: "Create agent" }).click()
    await page.getByRole("form", { name: "Create an agent" }).getByRole("alert").getByText(/^Conflict: /).waitFor()

    // the human's own key: the old one is refused at once, the tab goes on with the new one
    await page.getByRole("button", { name: "Rotate my key" }).click()
    await page.getByRole("region", { name: "Your new API key" }).waitFor()
    const newHumanKey = (await page.getByRole("region", { name: "Your new API key" }).locator("[data-secret]")
      .textContent())!.trim()
    expect((await call("/api/agent/me", humanKey)).status).toBe(401)
    await go(page, "Fleet")
    await page.locator("tr[data-agent=\"bot2\"]").waitFor()

    // sign out, and back in with the new key
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("API key").fill(newHumanKey)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Fleet" }).waitFor()
    await page.locator("tr[data-agent=\"bot1\"]").waitFor()

    expect(app!.outside).toEqual([])
    expect(problems.filter((p) => !p.includes("status of 409"))).toEqual([])
  }
}
