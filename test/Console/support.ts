/**
 * A real Shoal process on a fresh embedded database and Debian's chromium (driven by playwright-core), for the
 * console's browser tests. Each test file starts its own; without chromium they skip with a notice.
 */
import { inject } from "@effect/vitest"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { type Browser, chromium } from "playwright-core"
import { freePort } from "../../bench/support.js"

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
export const hasChromium = Fs.existsSync(CHROMIUM)
if (!hasChromium) {
  console.warn(`NOTICE: ${CHROMIUM} not found (apt-get install chromium); the console's browser test is skipped`)
}

// generous: a loaded 2-core machine runs a server, a browser and other test files at once
export const WAIT = { timeout: 20_000 }

/** A JSON call as a client makes it: GET without a body, POST with one. */
export const callAt = async (url: string, path: string, key?: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: res.status, body: (await res.json()) as any }
}

export interface ConsoleApp {
  readonly base: string
  readonly wallet: string
  readonly browser: Browser
  /** what the server printed */
  readonly output: () => string
  /** requests a page made to anywhere but 127.0.0.1: none may leave */
  readonly outside: Array<string>
  readonly stop: () => Promise<void>
}

/** The console built, Shoal started on free ports (from the suite's migrated template), chromium launched. */
export const startConsoleApp = async (): Promise<ConsoleApp> => {
  const built = spawnSync(process.execPath, ["scripts/build-console.mjs", "--if-stale"], { encoding: "utf8" })
  if (built.status !== 0) throw new Error(`the console did not build:\n${built.stderr}`)
  const [port, walletPort] = await Promise.all([freePort(), freePort()])
  const base = `http://127.0.0.1:${port}`
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-console-"))
  // a copy of the suite's freshly migrated template (empty, as a new install) where there is one: initialising a
  // PGlite directory takes most of a minute on a loaded machine
  const template = inject("pgliteTemplate")
  if (template) {
    Fs.mkdirSync(Path.join(dataDir, "pg"))
    const untar = spawnSync("tar", ["-xzf", template, "-C", Path.join(dataDir, "pg")], { encoding: "utf8" })
    if (untar.status !== 0) throw new Error(`could not unpack the database template:\n${untar.stderr}`)
  }
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    WALLET_PORT: String(walletPort),
    HOST: "127.0.0.1",
    DNS_PORT: "0",
    // one sign-up per test run is not a flood
    SIGNUP_RATE_LIMIT: "0",
    // the webhook screen's test event and deliveries go to a receiver the test runs on 127.0.0.1
    WEBHOOK_ALLOW_PRIVATE: "true"
  }
  delete env.DATABASE_URL // a fresh embedded database, whatever the suite runs on
  let output = ""
  const server: ChildProcess = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  server.stdout!.on("data", (d) => (output += d))
  server.stderr!.on("data", (d) => (output += d))
  const [browser] = await Promise.all([
    chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
      timeout: 60_000
    }),
    (async () => {
      const until = Date.now() + 90_000
      while (Date.now() < until) {
        if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) return
        await new Promise((r) => setTimeout(r, 200))
      }
      throw new Error(`Shoal did not start:\n${output}`)
    })()
  ])
  return {
    base,
    wallet: `http://127.0.0.1:${walletPort}`,
    browser,
    output: () => output,
    outside: [],
    stop: async () => {
      await browser.close()
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once("exit", r))
        server.kill("SIGTERM")
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))])
      }
    }
  }
}
