import { HttpServer } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { chromium } from "playwright-core"
import { newProject } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp, uniqueHandle } from "../support/TestApp.js"

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" }
const JSON_ = { accept: "application/json" }
const path = (permalink: string) => new URL(permalink).pathname

/** A human with a public and a private project, a task in each, and a public and a private post. */
const world = Effect.gen(function*() {
  const owner = yield* signUp(uniqueHandle("h"), "Permalink Owner")
  const stranger = yield* signUp(uniqueHandle("s"))
  const open = yield* newProject(owner.client, { title: "Open <b>house</b>", visibility: "public" })
  const closed = yield* newProject(owner.client, { title: "Secret plans", visibility: "private" })
  const task = (project_id: typeof open.id, title: string) =>
    Effect.map(
      owner.client.tasks.createTask({ path: { project_id }, payload: { title, description: "d" }, headers: {} }),
      (r) => r.task
    )
  const openTask = yield* task(open.id, "Paint the <script>alert(1)</script> fence")
  const closedTask = yield* task(closed.id, "Hidden task")
  const post = (visibility: "public" | "private") =>
    Effect.map(
      rawRequest("POST", "/api/agent/posts", {
        key: owner.api_key,
        body: JSON.stringify({ content: `a ${visibility} post`, visibility })
      }),
      (r) => r.body.post as { id: string; permalink: string }
    )
  return {
    owner,
    stranger,
    open,
    closed,
    openTask,
    closedTask,
    publicPost: yield* post("public"),
    privatePost: yield* post("private")
  }
})

describeApp()("permalinks", (it) => {
  it.effect("a browser gets a readable, escaped page of what is public; private or unknown → the same 404 page", () =>
    Effect.gen(function*() {
      const w = yield* world
      const project = yield* rawRequest("GET", path(w.open.permalink), { headers: HTML })
      expect(project.status).toBe(200)
      expect(project.headers["content-type"]).toContain("text/html")
      expect(project.text).toContain("Open &lt;b&gt;house&lt;/b&gt;")
      expect(project.text).not.toContain("<b>house</b>")

      const task = yield* rawRequest("GET", path(w.openTask.permalink), { headers: HTML })
      expect(task.status).toBe(200)
      expect(task.text).toContain("Paint the &lt;script&gt;alert(1)&lt;/script&gt; fence")
      expect(task.text).not.toContain("<script>alert(1)")

      const post = yield* rawRequest("GET", path(w.publicPost.permalink), { headers: HTML })
      expect(post.status).toBe(200)
      expect(post.text).toContain("a public post")

      // private, unknown, malformed, or a task under another project's path: one page that tells nothing
      const notFound = [
        path(w.closed.permalink),
        path(w.closedTask.permalink),
        path(w.privatePost.permalink),
        "/projects/00000000-0000-4000-8000-000000000000",
        "/projects/not-a-uuid",
        `/projects/${w.closed.id}/tasks/${w.openTask.id}`,
        `/projects/${w.open.id}/tasks/${w.closedTask.id}`
      ]
      const pages = yield* Effect.forEach(notFound, (p) => rawRequest("GET", p, { headers: HTML }))
      for (const page of pages) {
        expect(page.status).toBe(404)
        expect(page.text).toBe(pages[0]!.text)
        expect(page.text).not.toContain("Secret plans")
        expect(page.text).not.toContain("Hidden task")
      }
      // the page lets a console user signed in in this tab load it with its key
      const script = yield* rawRequest("GET", "/permalink.js")
      expect(script.status).toBe(200)
      expect(script.headers["content-type"]).toContain("javascript")

      // a key in the headers counts for the page too
      const mine = yield* rawRequest("GET", path(w.closedTask.permalink), { headers: HTML, key: w.owner.api_key })
      expect(mine.status).toBe(200)
      expect(mine.text).toContain("Hidden task")
    }))

  it.effect("Accept: application/json with a key: the resource as its API returns it; private ones 404 to others", () =>
    Effect.gen(function*() {
      const w = yield* world
      const pairs = [
        [w.open.permalink, `/api/agent/projects/${w.open.id}`],
        [w.closed.permalink, `/api/agent/projects/${w.closed.id}`],
        [w.openTask.permalink, `/api/agent/tasks/${w.openTask.id}`],
        [w.closedTask.permalink, `/api/agent/tasks/${w.closedTask.id}`],
        [w.publicPost.permalink, `/api/agent/posts/${w.publicPost.id}`],
        [w.privatePost.permalink, `/api/agent/posts/${w.privatePost.id}`]
      ] as const
      for (const [permalink, api] of pairs) {
        const viaLink = yield* rawRequest("GET", path(permalink), { headers: JSON_, key: w.owner.api_key })
        const viaApi = yield* rawRequest("GET", api, { key: w.owner.api_key })
        expect(viaLink.status).toBe(200)
        expect(viaLink.headers["content-type"]).toContain("application/json")
        expect(viaLink.body).toEqual(viaApi.body)
      }
      // a stranger: the public ones as the API gives them, the private ones the API's 404
      for (const [permalink, api] of pairs) {
        const viaLink = yield* rawRequest("GET", path(permalink), { headers: JSON_, key: w.stranger.api_key })
        const viaApi = yield* rawRequest("GET", api, { key: w.stranger.api_key })
        expect([viaLink.status, viaLink.body]).toEqual([viaApi.status, viaApi.body])
      }
      expectError(
        yield* rawRequest("GET", path(w.closed.permalink), { headers: JSON_, key: w.stranger.api_key }),
        404,
        "not_found"
      )
      // JSON without a key: the API's 401
      const anon = yield* rawRequest("GET", path(w.open.permalink), { headers: JSON_ })
      expectError(anon, 401, "unauthorized")
      expect(anon.headers["www-authenticate"]).toBe("Bearer")
    }))

  it.effect.skipIf(!Fs.existsSync(CHROMIUM))(
    "a browser opens a task's permalink and shows the task's title",
    () =>
      Effect.gen(function*() {
        const w = yield* world
        const server = yield* HttpServer.HttpServer
        const port = (server.address as HttpServer.TcpAddress).port
        // the permalink's path on the test server (PUBLIC_URL names the default port, not the test's random one)
        const url = `http://127.0.0.1:${port}${path(w.openTask.permalink)}`
        const title = yield* Effect.promise(async () => {
          const browser = await chromium.launch({
            executablePath: CHROMIUM,
            args: ["--headless", "--no-sandbox", "--disable-gpu"],
            timeout: 60_000
          })
          try {
            const page = await browser.newPage()
            const res = await page.goto(url)
            expect(res?.status()).toBe(200)
            return await page.locator("h1").first().textContent({ timeout: 20_000 })
          } finally {
            await browser.close()
          }
        })
        expect(title).toBe("Paint the <script>alert(1)</script> fence")
      }),
    120_000
  )
})
