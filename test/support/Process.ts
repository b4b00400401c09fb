import { type ChildProcess, spawn } from "node:child_process"

/** A Shoal process started from the sources (`node --import tsx src/main.ts`), its output kept for failures. */
export interface Started {
  readonly child: ChildProcess
  readonly output: () => string
}

export const start = (env: Record<string, string>, args: ReadonlyArray<string> = []): Started => {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  return { child, output: () => output }
}

/** Polls `path` until it answers 2xx; its JSON body is returned. */
export const waitHealthy = async (base: string, proc: { output: () => string }, ms = 60_000, path = "/health") => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    try {
      const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) })
      if (res.ok) return (await res.json()) as any
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`server did not become healthy:\n${proc.output()}`)
}

/** SIGTERM, and the exit code once it exits (a failure after 20 s, with the output). */
export const stop = (child: ChildProcess, output?: () => string) =>
  new Promise<number | null>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no exit 20 s after SIGTERM:\n${output?.()}`)), 20_000)
    child.once("exit", (code) => (clearTimeout(t), resolve(code)))
    child.kill("SIGTERM")
  })
