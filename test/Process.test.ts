import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort } from "../bench/support.js"

const start = (env: Record<string, string>) => {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (d) => (output += d))
  child.stderr.on("data", (d) => (output += d))
  return { child, output: () => output }
}

const waitHealthy = async (base: string, proc: { output: () => string }, ms = 60_000) => {
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
  throw new Error(`server did not become healthy:\n${proc.output()}`)
}

const stop = (child: ChildProcess, output?: () => string) =>
  new Promise<number | null>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no exit 20 s after SIGTERM:\n${output?.()}`)), 20_000)
    child.once("exit", (code) => (clearTimeout(t), resolve(code)))
    child.kill("SIGTERM")
  })

describe("the service process", () => {
  it("serves /health, keeps data across a restart, and exits 0 on SIGTERM", { timeout: 120_000 }, async () => {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-proc-"))
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    // DNS_PORT=0: the responder binds an ephemeral port, so parallel runs on one machine do not collide on 5353
    const env = { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", DNS_PORT: "0" }
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
})
