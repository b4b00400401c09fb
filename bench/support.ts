import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import * as Net from "node:net"

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = Net.createServer()
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as Net.AddressInfo).port
      srv.close(() => resolve(port))
    })
    srv.on("error", reject)
  })

export interface Proc {
  readonly child: ChildProcess
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/** Runs a TypeScript entry point in its own process (so the load generator does not share its event loop). */
export const startTs = (entry: string, env: Record<string, string>, args: ReadonlyArray<string> = []): Proc => {
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  return {
    child,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
        setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
      })
  }
}

export const waitFor = async (url: string, proc: Proc, ms = 90_000) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not up yet
    }
    if (proc.child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${url} did not come up:\n${proc.output()}`)
}

export const load = (
  url: string,
  options: { seconds: number; connections: number; headers?: Record<string, string> }
) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      { url, duration: options.seconds, connections: options.connections, headers: options.headers ?? {} },
      (err, result) => (err ? reject(err) : resolve(result))
    )
  })

export const seconds = () => Number(process.env.BENCH_SECONDS ?? 10)
