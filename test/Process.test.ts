import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort } from "../bench/support.js"
import { start, stop, waitHealthy } from "./support/Process.js"

describe("the service process", () => {
  it("serves /health, keeps data across a restart, and exits 0 on SIGTERM", { timeout: 120_000 }, async () => {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-proc-"))
    const [port, walletPort] = await Promise.all([freePort(), freePort()])
    const base = `http://127.0.0.1:${port}`
    // DNS_PORT=0: the responder binds an ephemeral port, so parallel runs on one machine do not collide on 5353
    const env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      WALLET_PORT: String(walletPort),
      HOST: "127.0.0.1",
      DNS_PORT: "0"
    }
    const started: Array<ChildProcess> = []
    const track = (p: ReturnType<typeof start>) => (started.push(p.child), p)
    try {
      let proc = track(start(env))
      const health = await waitHealthy(base, proc)
      expect(health).toMatchObject({ status: "success", database: "up" })

      const handle = `persist${Date.now().toString(36)}`
      const created = await fetch(`${base}/api/accounts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ handle, display_name: "Persistent" })
      })
      expect(created.status).toBe(201)
      const { api_key } = (await created.json()) as { api_key: string }
      // a heartbeat that only lives in memory until the shutdown flush
      expect((await fetch(`${base}/api/agent/me`, { headers: { "x-api-key": api_key } })).status).toBe(200)

      expect(await stop(proc.child, proc.output)).toBe(0)

      proc = track(start(env))
      await waitHealthy(base, proc)
      const me = await fetch(`${base}/api/agent/me`, { headers: { authorization: `Bearer ${api_key}` } })
      expect(me.status).toBe(200)
      const body = (await me.json()) as any
      expect(body.user.handle).toBe(handle)
      expect(body.user.last_heartbeat_at).not.toBeNull()
      expect(await stop(proc.child, proc.output)).toBe(0)
    } finally {
      // a failed run must not leave a server holding its port and data directory
      for (const child of started) if (child.exitCode === null) child.kill("SIGKILL")
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("refuses to open an embedded data directory another live process holds", { timeout: 60_000 }, async () => {
    const { lockDataDir } = await import("../src/Database/DataDirLock.js")
    const { Effect, Exit } = await import("effect")
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-lock-"))
    try {
      // a live foreign pid holds the lock
      const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"])
      Fs.writeFileSync(Path.join(dir, "shoal.lock"), String(holder.pid))
      const locked = await Effect.runPromiseExit(Effect.scoped(lockDataDir(dir)))
      holder.kill()
      expect(Exit.isFailure(locked)).toBe(true)
      // a stale lock (dead pid, e.g. after kill -9) is taken over
      await new Promise((r) => holder.once("exit", r))
      const taken = await Effect.runPromiseExit(Effect.scoped(lockDataDir(dir)))
      expect(Exit.isSuccess(taken)).toBe(true)
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("npm start finishes its graceful shutdown when its whole process group is signalled, twice, and exits 0", {
    timeout: 120_000
  }, async () => {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-group-"))
    const [port, walletPort] = await Promise.all([freePort(), freePort()])
    const base = `http://127.0.0.1:${port}`
    const env = { DATA_DIR: dataDir, PORT: String(port), WALLET_PORT: String(walletPort), DNS_PORT: "0" }
    // a terminal's Ctrl-C and systemd signal the process group: npm, and the server under it
    const npm = spawn("npm", ["start"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
    let output = ""
    npm.stdout.on("data", (d) => (output += d))
    npm.stderr.on("data", (d) => (output += d))
    const proc = { child: npm, output: () => output }
    try {
      await waitHealthy(base, proc)
      // npm start runs the bundle (build/server), whose /docs page is a chunk loaded on the first request
      const docs = await fetch(`${base}/docs`)
      expect(docs.status, output).toBe(200)
      expect(await docs.text()).toContain("SwaggerUIBundle")
      const created = await fetch(`${base}/api/accounts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ handle: `group${Date.now().toString(36)}`, display_name: "Group" })
      })
      const { api_key } = (await created.json()) as { api_key: string }
      // heartbeats held in memory until the shutdown flush
      for (let i = 0; i < 5; i++) await fetch(`${base}/api/agent/me`, { headers: { "x-api-key": api_key } })
      const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)))
      // the server under npm (`sh -c "exec node …"`: npm's one child)
      let server = NaN
      try {
        server = Number(Fs.readFileSync(`/proc/${npm.pid}/task/${npm.pid}/children`, "utf8").trim().split(/\s+/)[0])
      } catch {
        // no /proc children list here
      }
      const alive = (pid: number) => {
        if (!Number.isInteger(pid) || pid <= 0) return true // not found in /proc: signal as before
        try {
          process.kill(pid, 0)
          return true
        } catch {
          return false
        }
      }
      // a shutdown may finish before the later signals (on a server it takes milliseconds): those are for a
      // shutdown still under way, so they go only while the server runs. Sent after it exited, they reached npm
      // between its child's exit and its own, with its handlers gone, and ended npm by the signal (exit code null)
      const signal = (name: NodeJS.Signals) => {
        if (!alive(server)) return
        try {
          process.kill(-npm.pid!, name)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e
        }
      }
      signal("SIGTERM")
      await new Promise((r) => setTimeout(r, 50))
      signal("SIGTERM")
      await new Promise((r) => setTimeout(r, 50))
      signal("SIGINT")
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 30_000))])
      expect(code, output).toBe(0)

      // the shutdown flushed the heartbeats and closed the database cleanly
      const again = start(env)
      try {
        await waitHealthy(base, again)
        const me = await fetch(`${base}/api/agent/me`, { headers: { "x-api-key": api_key } })
        expect(((await me.json()) as any).user.last_heartbeat_at).not.toBeNull()
        expect(await stop(again.child, again.output)).toBe(0)
      } finally {
        if (again.child.exitCode === null) again.child.kill("SIGKILL")
      }
    } finally {
      try {
        process.kill(-npm.pid!, "SIGKILL")
      } catch {
        // already gone
      }
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("--only wallet serves the wallet API alone", { timeout: 120_000 }, async () => {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-only-"))
    const [port, walletPort] = await Promise.all([freePort(), freePort()])
    const proc = start(
      { DATA_DIR: dataDir, PORT: String(port), WALLET_PORT: String(walletPort), DNS_PORT: "0" },
      ["--only", "wallet"]
    )
    try {
      const rate = await waitHealthy(
        `http://127.0.0.1:${walletPort}`,
        proc,
        60_000,
        "/api/gems/settings/gem-conversion-rate"
      )
      expect(rate).toMatchObject({ status: "success", gem_to_usd: 0.52 })
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow()
      expect(await stop(proc.child, proc.output)).toBe(0)
    } finally {
      if (proc.child.exitCode === null) proc.child.kill("SIGKILL")
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("a port already in use is named in the error, with EADDRINUSE", { timeout: 60_000 }, async () => {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-inuse-"))
    const blocker = Net.createServer()
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r))
    const taken = (blocker.address() as Net.AddressInfo).port
    const proc = start({ DATA_DIR: dataDir, PORT: String(taken), WALLET_PORT: String(await freePort()), DNS_PORT: "0" })
    try {
      const code = await new Promise<number | null>((resolve) => proc.child.once("exit", resolve))
      expect(code).not.toBe(0)
      expect(proc.output()).toContain(`cannot listen on 127.0.0.1:${taken} (PORT): EADDRINUSE`)
    } finally {
      if (proc.child.exitCode === null) proc.child.kill("SIGKILL")
      blocker.close()
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
