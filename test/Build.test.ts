import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort } from "../bench/support.js"

const root = Path.resolve(import.meta.dirname, "..")

/** Node with no loader at all: no tsx, and nothing a parent's NODE_OPTIONS might have added. */
const plainNode = (args: ReadonlyArray<string>, env: Record<string, string>, cwd: string) =>
  spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, NODE_OPTIONS: "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })

const collect = (child: ChildProcess) => {
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  return () => output
}

const exitOf = (child: ChildProcess, ms: number, output: () => string) =>
  new Promise<number | null>((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    const t = setTimeout(() => reject(new Error(`no exit within ${ms} ms:\n${output()}`)), ms)
    child.once("exit", (code) => (clearTimeout(t), resolve(code)))
  })

const waitHealthy = async (base: string, output: () => string, ms = 60_000) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    try {
      const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) })
      if (res.ok) return (await res.json()) as any
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`compiled server did not become healthy:\n${output()}`)
}

const filesUnder = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => Path.relative(dir, Path.join(e.parentPath, e.name)))

describe("the compiled build (npm run build)", () => {
  it("runs the server and the CLI with plain node, and the server stops with exit 0 on SIGTERM", {
    // tsc over the whole program plus a fresh embedded database: ~35 s alone, 150 s on a loaded machine
    timeout: 300_000
  }, async () => {
    // its own output directory inside the project (so the project's node_modules are found), never dist/ that a
    // developer may be running from
    const outName = `.build-test-${process.pid}`
    const out = Path.join(root, outName)
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-build-"))
    let server: ChildProcess | undefined
    try {
      const build = spawnSync(process.execPath, ["scripts/build.mjs", "--out", outName], {
        cwd: root,
        encoding: "utf8"
      })
      expect(build.status, `${build.stdout}${build.stderr}`).toBe(0)

      const files = filesUnder(out)
      expect(files).toContain(Path.join("src", "main.js"))
      expect(files).toContain(Path.join("src", "cli.js"))
      expect(files).toContain(Path.join("packages", "domain", "src", "index.js"))
      expect(files.filter((f) => f.endsWith(".ts"))).toEqual([])
      // the compiled tree resolves @shoal/domain to its own compiled copy, not to the .ts sources
      expect(Fs.realpathSync(Path.join(out, "node_modules", "@shoal", "domain"))).toBe(
        Path.join(Fs.realpathSync(out), "packages", "domain")
      )

      const [port, walletPort] = await Promise.all([freePort(), freePort()])
      const env = { DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: String(port), WALLET_PORT: String(walletPort) }
      // run from elsewhere, as systemd does: nothing may depend on the working directory
      server = plainNode([Path.join(out, "src", "main.js")], { ...env, DNS_PORT: "0" }, Os.tmpdir())
      const output = collect(server)
      const health = await waitHealthy(`http://127.0.0.1:${port}`, output)
      expect(health).toMatchObject({ status: "success", database: "up" })
      // the document and the Swagger UI's assets come from the production dependencies, not the sources
      // …and the console's page and bundle, built into the compiled tree (dist/console/dist)
      for (const path of ["/openapi.json", "/docs", "/", "/console/console.js"]) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`)
        expect(res.status, path).toBe(200)
      }
      server.kill("SIGTERM")
      expect(await exitOf(server, 20_000, output), output()).toBe(0)

      // the compiled CLI on the same (now free) data directory
      const handle = `built${Date.now().toString(36)}`
      const cli = plainNode(
        [Path.join(out, "src", "cli.js"), "account", "create", "--handle", handle],
        env,
        Os.tmpdir()
      )
      const cliOutput = collect(cli)
      expect(await exitOf(cli, 60_000, cliOutput), cliOutput()).toBe(0)
      expect(JSON.parse(cliOutput().slice(cliOutput().indexOf("{")))).toMatchObject({
        status: "success",
        user: { handle }
      })
    } finally {
      if (server !== undefined && server.exitCode === null) server.kill("SIGKILL")
      Fs.rmSync(out, { recursive: true, force: true })
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
