/**
 * The owner's cockpit in a real browser (issue 44): the inbox from one read, updated live from the event stream; an
 * approval's note kept on the task; an agent's page whose balance rises without a reload and whose usage chart
 * draws reported usage; a DM from an agent read and answered in the page; keyboard triage and a cancel that burns a
 * bounty; an agent's named keys; the webhook screen's test event and retry; and the Inbox of an owner with 60
 * projects, timed. Screenshots of each screen at 1280×800 and 390×844 go to docs/screens/ (the README shows them)
 * with UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Page } from "playwright-core"
import { callAt, type ConsoleApp, hasChromium, startConsoleApp, WAIT } from "./support.js"

let app: ConsoleApp | undefined
// UPDATE_SCREENSHOTS=1 writes them over the committed ones in docs/screens/; otherwise to a folder this test prints,
// so a test run leaves the checkout as it was
const shots = process.env.UPDATE_SCREENSHOTS === "1"
  ? Path.resolve("docs/screens")
  : Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-cockpit-screenshots-"))

const call = (path: string, key?: string, body?: unknown, url = app!.base) => callAt(url, path, key, body)

beforeAll(async () => {
  if (hasChromium) app = await startConsoleApp()
}, 120_000)

afterAll(async () => {
  await app?.stop()
  if (hasChromium) console.log(`cockpit screenshots: ${shots}`)
})

const screenshot = async (page: Page, name: string) => {
  Fs.mkdirSync(shots, { recursive: true })
  for (const [width, height] of [[390, 844], [1280, 800]] as const) {
    await page.setViewportSize({ width, height })
    await page.screenshot({ path: Path.join(shots, `${name}-${width}x${height}.png`) })
  }
}

// what the page asked to confirm (every confirmation is accepted here)
const dialogs: Array<string> = []

const eventsOf = async (key: string) => {
  const found: Array<any> = []
  let after: string | undefined
  for (let i = 0; i < 20; i++) {
    const page = await call(`/api/agent/events?limit=500${after === undefined ? "" : `&after=${after}`}`, key)
    found.push(...page.body.events)
    after = page.body.next_cursor
    if (!page.body.has_more) break
  }
  return found
}

describe.skipIf(!hasChromium)("the owner's cockpit in a browser", () => {
  it("a live inbox, an approval's note kept, an agent's page live, a DM answered", { timeout: 120_000 }, async () => {
    const context = await app!.browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    page.setDefaultTimeout(WAIT.timeout)
    const problems: Array<string> = []
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console error: ${m.text()}`)
    })
    page.on("dialog", (d) => {
      dialogs.push(d.message())
      void d.accept()
    })
    page.on("request", (request) => {
      const url = new URL(request.url())
      if (url.hostname !== "127.0.0.1" && url.protocol !== "data:") app!.outside.push(request.url())
    })
    try {
      await cockpit(page)
      expect(problems).toEqual([])
      expect(app!.outside).toEqual([])
    } catch (e) {
      const text = await page.locator("main").innerText().catch(() => "")
      throw new Error(`${(e as Error).message}\n--- the page said:\n${text}\n--- problems: ${problems.join("\n")}`)
    } finally {
      await context.close()
    }
  })
})

describe.skipIf(!hasChromium)("the Inbox of an owner with 60 projects", () => {
  it(
    "loads in at most 10 requests, ten times in a row, without a 429 (its time printed)",
    { timeout: 180_000 },
    async () => {
      const human = (await call("/api/accounts", undefined, { handle: "pat", display_name: "Pat" })).body.api_key
      const bot = (await call("/api/account/agents", human, { handle: "pat-bot", display_name: "Pat's bot" })).body
        .api_key
      // 60 projects, each with a task for the agent; a bounty completed in five of them awaits approval
      for (let i = 0; i < 60; i++) {
        const project = (await call("/api/agent/projects", human, { title: `Project ${i}` })).body.project
        const task = (await call(`/api/agent/projects/${project.id}/tasks`, human, {
          title: `Task ${i}`,
          assigned_to: "pat-bot",
          ...(i % 12 === 0 ? { gem_bounty: 5 } : {})
        })).body.task
        if (i % 12 === 0) {
          expect((await call(`/api/agent/tasks/${task.id}/complete`, bot, { completion_note: "done" })).status).toBe(
            200
          )
        }
      }
      expect((await call("/api/agent/projects?limit=100", human)).body.projects.length).toBeGreaterThanOrEqual(60)

      const context = await app!.browser.newContext({ viewport: { width: 1280, height: 800 } })
      const page = await context.newPage()
      page.setDefaultTimeout(WAIT.timeout)
      try {
        await page.goto(`${app!.base}/`)
        await page.getByLabel("API key").fill(human)
        await page.getByRole("button", { name: "Sign in" }).click()
        await page.getByRole("heading", { name: "Fleet" }).waitFor()

        const loads: Array<{ ms: number; requests: number; statuses: Array<number> }> = []
        for (let n = 0; n < 10; n++) {
          const requests: Array<string> = []
          const statuses: Array<number> = []
          const onRequest = (r: { url: () => string }) => requests.push(r.url())
          const onSocket = (w: { url: () => string }) => requests.push(w.url())
          const onResponse = (r: { status: () => number }) => statuses.push(r.status())
          page.on("request", onRequest)
          page.on("websocket", onSocket)
          page.on("response", onResponse)
          const started = Date.now()
          await page.goto(`${app!.base}/console/inbox`)
          await page.locator("[data-count=completion]").getByText("5 completions").waitFor()
          await page.locator("li.card[data-kind=completion]").nth(4).waitFor()
          const ms = Date.now() - started
          // the page settles (its event stream connects) before the next load is counted
          await page.waitForTimeout(300)
          page.off("request", onRequest)
          page.off("websocket", onSocket)
          page.off("response", onResponse)
          loads.push({ ms, requests: requests.length, statuses })
          expect(requests.length, requests.join("\n")).toBeLessThanOrEqual(10)
        }
        // the time is printed, not asserted: a timed test fails on a loaded machine (CI runs files side by side); the
        // figure on a quiet machine is in the closing note and README
        console.log(`60-project Inbox loads: ${loads.map((l) => `${l.ms} ms/${l.requests} req`).join(", ")}`)
        for (const l of loads) {
          expect(l.requests).toBeLessThanOrEqual(10)
          expect(l.statuses).not.toContain(429)
        }
      } finally {
        await context.close()
      }
    }
  )
})

const cockpit = async (page: Page) => {
  const human = (await call("/api/accounts", undefined, { handle: "olive", display_name: "Olive" })).body.api_key
  const bot = (await call("/api/account/agents", human, { handle: "worker", display_name: "Worker" })).body.api_key
  const project = (await call("/api/agent/projects", human, { title: "Cockpit" })).body.project
  const bounty = async (title: string, gems: number) =>
    (await call(`/api/agent/projects/${project.id}/tasks`, human, { title, assigned_to: "worker", gem_bounty: gems }))
      .body.task

  // sign in, open the Inbox: nothing awaits yet
  await page.goto(`${app!.base}/`)
  await page.getByRole("button", { name: "Create account" }).waitFor()
  await screenshot(page, "sign-in")
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.getByLabel("API key").fill(human)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { name: "Fleet" }).waitFor()
  // the Inbox costs the owner one API read, however many projects it has
  const reads: Array<string> = []
  const count = (r: { url: () => string }) => {
    if (new URL(r.url()).pathname.startsWith("/api/")) reads.push(r.url())
  }
  page.on("request", count)
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Inbox" }).click()
  await page.locator("[data-count=completion]").getByText("0 completions").waitFor()
  page.off("request", count)
  expect(reads.map((u) => new URL(u).pathname)).toEqual(["/api/account/inbox"])
  await page.evaluate(() => ((globalThis as any).notReloaded = true))
  // the stream starts live when it connects: give the socket a moment before the first event
  await page.waitForTimeout(1_000)

  // the agent completes a bounty task through the API: the item appears within 2 s, without a reload
  const task = await bounty("Ship the report", 40)
  expect((await call(`/api/agent/tasks/${task.id}/complete`, bot, { completion_note: "done" })).status).toBe(200)
  const completed = Date.now()
  const card = page.locator(`[data-task="${task.id}"]`)
  await card.getByText("40 Gems at stake").waitFor({ timeout: 2_000 })
  expect(Date.now() - completed).toBeLessThan(2_000)
  await page.locator("[data-count=completion]").getByText("1 completion").waitFor()

  // the agent writes to its owner: the DM appears live too
  const dm = await call("/api/agent/message", bot, {
    recipient_handle: "olive",
    content: "Report shipped, can I start the next one?"
  })
  expect(dm.status).toBe(201)
  const message = page.locator("[data-message]").filter({ hasText: "can I start the next one?" })
  await message.waitFor()
  await page.locator("[data-count=agent_message]").getByText("1 message from an agent").waitFor()
  await screenshot(page, "inbox")
  await page.setViewportSize({ width: 1280, height: 800 })

  // approve with a note: the note is on the task
  await card.getByLabel(/^Note/).fill("Thorough work, thanks")
  await card.getByRole("button", { name: /^Approve/ }).click()
  await card.waitFor({ state: "detached" })
  // paying out asked first, naming who is paid and how much
  expect(dialogs).toContainEqual(expect.stringContaining("pay @worker 40 Gems"))
  const detail = (await call(`/api/agent/tasks/${task.id}`, human)).body.task
  expect(detail.status).toBe("completed")
  expect(JSON.stringify(detail.comments)).toContain("Thorough work, thanks")

  // reply to the DM: the agent receives it as message.received
  await message.getByRole("textbox", { name: "Reply to @worker" }).fill("Yes, go ahead")
  await message.getByRole("button", { name: "Send the reply to @worker" }).click()
  await message.waitFor({ state: "detached" })
  const until = Date.now() + 10_000
  let received: any
  while (received === undefined && Date.now() < until) {
    received = (await eventsOf(bot)).find((e) =>
      e.type === "message.received" && JSON.stringify(e.data).includes("Yes, go ahead")
    )
    if (received === undefined) await new Promise((r) => setTimeout(r, 300))
  }
  expect(received).toBeDefined()
  expect(await page.evaluate(() => (globalThis as any).notReloaded)).toBe(true)

  // the agent's page, from the fleet: its balance is the approved 40 Gems
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Fleet" }).click()
  await page.locator("tr[data-agent=\"worker\"]").getByRole("link", { name: "@worker" }).click()
  await page.waitForURL("**/console/agents/worker")
  await page.getByRole("heading", { name: "@worker" }).waitFor()
  await page.locator("[data-balance=\"40\"]").waitFor()
  // its messages to the owner, and one to it from the page: the agent gets message.received
  await page.locator("[data-message]").filter({ hasText: "can I start the next one?" }).waitFor()
  await page.getByRole("textbox", { name: "Message to @worker" }).fill("Also: update the changelog")
  await page.getByRole("form", { name: "Message @worker" }).getByRole("button", { name: "Send" }).click()
  await page.getByText("Sent to @worker.").waitFor()
  await expect.poll(
    async () =>
      (await eventsOf(bot)).some((e) =>
        e.type === "message.received" && JSON.stringify(e.data).includes("Also: update the changelog")
      ),
    { timeout: 10_000 }
  ).toBe(true)
  await page.evaluate(() => ((globalThis as any).notReloaded = true))

  // usage reported through the API draws the chart, by day and by model, without a reload
  for (const [model, tokens] of [["claude-sonnet", 12_000], ["gpt-mini", 3_000], ["claude-sonnet", 5_000]] as const) {
    expect((await call("/api/agent/usage", bot, { model, total_tokens: tokens })).status).toBe(201)
  }
  await page.locator("[data-chart=usage-by-day] [data-bar]").first().waitFor()
  await page.locator("[data-usage-total=\"20000\"]").waitFor()
  expect(await page.locator("[data-chart=usage-by-model] [data-bar]").count()).toBe(2)

  // a second bounty approved elsewhere (the API): the balance on the open page rises, live
  const second = await bounty("Write the follow-up", 25)
  expect((await call(`/api/agent/tasks/${second.id}/complete`, bot, { completion_note: "done" })).status).toBe(200)
  expect((await call(`/api/agent/tasks/${second.id}/approve`, human, {})).status).toBe(200)
  await page.locator("[data-balance=\"65\"]").waitFor({ timeout: 8_000 })
  expect((await call("/api/gems/balance", bot, undefined, app!.wallet)).body.balance).toBe(65)
  expect(await page.evaluate(() => (globalThis as any).notReloaded)).toBe(true)
  await screenshot(page, "agent")
  await page.setViewportSize({ width: 1280, height: 800 })

  // the owner's ledger on Work: both bounties funded and paid, filtered by kind
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Work" }).click()
  const ledger = page.getByRole("region", { name: "Gems transactions" })
  await ledger.locator("tr[data-source=bounty_funding]").first().waitFor()
  await page.getByLabel("Show").selectOption({ label: "Bounties paid" })
  await expect.poll(() => ledger.locator("tr[data-source]").count()).toBe(2)
  expect(await ledger.locator("tr[data-source=bounty_release]").count()).toBe(2)

  // a new task with a bounty and an assignee, from the page
  const article = page.locator(`[data-project="${project.id}"]`)
  await article.getByText("Add a task").click()
  const taskForm = page.getByRole("form", { name: "New task in Cockpit" })
  await taskForm.getByLabel("Title").fill("Plan the next sprint")
  await taskForm.getByLabel("Assignee (optional)").fill("worker")
  await taskForm.getByLabel("Bounty in Gems (optional)").fill("15")
  await taskForm.getByRole("button", { name: "Create task" }).click()
  await page.locator(`[data-project="${project.id}"] tr[data-task]`).filter({ hasText: "Plan the next sprint" })
    .getByText("15 Gems").waitFor()
  const listed = (await call(`/api/agent/projects/${project.id}/tasks`, human)).body.tasks
  expect(listed.find((t: any) => t.title === "Plan the next sprint")).toMatchObject({
    gem_bounty: 15,
    assigned_to: { handle: "worker" }
  })
  await screenshot(page, "work")
  await page.setViewportSize({ width: 1280, height: 800 })

  await triage(page, human, bot, bounty)
  await agentKeys(page, human)
  await webhooks(page, human)
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Fleet" }).click()
  await page.locator("tr[data-agent=\"worker\"]").waitFor()
  await screenshot(page, "fleet")
}

/**
 * Keyboard triage in the Inbox: j/k select a card, a approves (the payout's confirmation still asks), c cancels a
 * bounty task after a confirmation that says its Gems are burned, as CONTRACT says; the API shows both.
 */
const triage = async (
  page: Page,
  human: string,
  bot: string,
  bounty: (title: string, gems: number) => Promise<any>
) => {
  const first = await bounty("Triage one", 10)
  const second = await bounty("Triage two", 7)
  for (const t of [first, second]) {
    expect((await call(`/api/agent/tasks/${t.id}/complete`, bot, { completion_note: "done" })).status).toBe(200)
  }
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Inbox" }).click()
  await page.locator("[data-count=completion]").getByText("2 completions").waitFor()
  expect(await page.locator("[data-hint=keyboard]").innerText()).toMatch(/j \/ k.*a.*approve.*c.*cancel/s)
  const cards = page.locator("li.card[data-kind=completion]")
  const titles = await cards.locator("h3").allInnerTexts()
  const target = (title: string) => (title === "Triage one" ? first : second)
  await page.locator("body").click({ position: { x: 1, y: 1 } })
  await page.keyboard.press("j")
  await page.locator("li.card.selected").waitFor()
  expect(await page.locator("li.card.selected h3").innerText()).toBe(titles[0])
  await page.keyboard.press("j")
  expect(await page.locator("li.card.selected h3").innerText()).toBe(titles[1])
  await page.keyboard.press("k")
  expect(await page.locator("li.card.selected h3").innerText()).toBe(titles[0])
  // a: approve the selected one (its confirmation is accepted here)
  const approved = target(titles[0]!)
  const asked = dialogs.length
  await page.keyboard.press("a")
  await page.locator(`[data-task="${approved.id}"]`).waitFor({ state: "detached" })
  expect(dialogs.slice(asked)).toEqual([expect.stringContaining(`pay @worker ${approved.gem_bounty} Gems`)])
  expect((await call(`/api/agent/tasks/${approved.id}`, human)).body.task.status).toBe("completed")
  // the next card is selected in its place: c cancels it, after saying the bounty burns
  const cancelled = target(titles[1]!)
  await page.locator(`li.card.selected[data-task="${cancelled.id}"]`).waitFor()
  const pendingBefore = (await call("/api/gems/balance", bot, undefined, app!.wallet)).body.pending
  await page.keyboard.press("c")
  await page.locator(`[data-task="${cancelled.id}"]`).waitFor({ state: "detached" })
  expect(dialogs.at(-1)).toMatch(new RegExp(`bounty of ${cancelled.gem_bounty} Gems is burned.*not paid.*not returned`))
  expect((await call(`/api/agent/tasks/${cancelled.id}`, human)).body.task.status).toBe("cancelled")
  const after = (await call("/api/gems/balance", bot, undefined, app!.wallet)).body
  expect(after.pending).toBe(pendingBefore - cancelled.gem_bounty)
}

/** The agent's page lists its keys by prefix and name; a name given there is the API's. */
const agentKeys = async (page: Page, human: string) => {
  await page.goto(`${app!.base}/console/agents/worker`)
  const keys = page.getByRole("region", { name: "Keys of @worker" })
  const live = keys.locator("tr[data-live=true]")
  await live.waitFor()
  const listed = (await call("/api/account/agents/worker/keys", human)).body.keys
  expect(await live.locator("code").innerText()).toBe(`${listed[0].prefix}…`)
  await live.getByRole("textbox").fill("production")
  await live.getByRole("button", { name: /^Save the name/ }).click()
  await expect.poll(async () => (await call("/api/account/agents/worker/keys", human)).body.keys[0].name).toBe(
    "production"
  )
  await keys.locator("tr[data-live=true] input[value=production]").waitFor()
  await screenshot(page, "agent-keys")
  await page.setViewportSize({ width: 1280, height: 800 })
}

/**
 * The webhook screen: a test event reaches the receiver signed, and its answer is shown; a failed delivery offers
 * "Retry", a pending or succeeded one does not.
 */
const webhooks = async (page: Page, human: string) => {
  let answer = 200
  const got: Array<{ headers: Http.IncomingHttpHeaders; body: string }> = []
  const server = Http.createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      got.push({ headers: req.headers, body })
      res.writeHead(answer).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  try {
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Settings" }).click()
    await page.getByRole("textbox", { name: "Webhook URL" }).fill(url)
    await page.getByRole("button", { name: "Save webhook URL" }).click()
    await page.getByText("Saved.").waitFor()
    expect(await page.getByRole("main").innerText()).toMatch(/stores the secret itself, not a hash/)
    await page.getByRole("button", { name: "Send test event" }).click()
    await page.locator("[data-test-result=delivered]").getByText(`answered HTTP 200`).waitFor()
    const test = got.find((r) => r.headers["x-service-event"] === "webhook.test")
    expect(test?.headers["webhook-signature"]).toMatch(/^v1,/)

    // an event the receiver refuses: pending (no Retry), then failed once the URL is gone (Retry offered)
    answer = 500
    const bot2 = (await call("/api/account/agents", human, { handle: "hooked", display_name: "Hooked" })).body.api_key
    expect((await call("/api/agent/message", bot2, { recipient_handle: "olive", content: "ping" })).status).toBe(201)
    const deliveries = async () => (await call("/api/agent/webhooks/deliveries", human)).body.deliveries as Array<any>
    await expect.poll(async () => (await deliveries()).some((d) => d.attempt_count > 0 && d.state === "pending"), {
      timeout: 10_000
    }).toBe(true)
    await page.getByRole("button", { name: "Refresh" }).click()
    const pending = page.locator("tr[data-state=pending]").first()
    await pending.waitFor()
    expect(await pending.getByRole("button", { name: /^Retry/ }).count()).toBe(0)
    expect(await page.locator("tr[data-state=succeeded]").getByRole("button", { name: /^Retry/ }).count()).toBe(0)
    await fetch(`${app!.base}/api/agent/profile`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${human}`, "content-type": "application/json" },
      body: JSON.stringify({ webhook_url: null })
    })
    await expect.poll(async () => (await deliveries()).some((d) => d.state === "failed"), { timeout: 15_000 }).toBe(
      true
    )
    await page.getByRole("button", { name: "Refresh" }).click()
    await page.locator("tr[data-state=failed]").first().getByRole("button", { name: /^Retry/ }).waitFor()
    await screenshot(page, "settings")
    await page.setViewportSize({ width: 1280, height: 800 })
  } finally {
    server.close()
  }
}
