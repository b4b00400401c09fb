import { Data, Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

export class DataDirLocked extends Data.TaggedError("DataDirLocked")<{ readonly dir: string; readonly pid: number }> {
  override get message() {
    return `data directory ${this.dir} is in use by process ${this.pid}; PGlite allows one process per directory`
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const tryCreate = (file: string) => {
  try {
    Fs.writeFileSync(file, String(process.pid), { flag: "wx" })
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false
    throw e
  }
}

/** An exclusive lock file in the data directory; a stale one (dead pid, e.g. after kill -9) is taken over. */
export const lockDataDir = (dir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        Fs.mkdirSync(dir, { recursive: true })
        const file = Path.join(dir, "shoal.lock")
        for (let attempt = 0; attempt < 3; attempt++) {
          if (tryCreate(file)) return { file, ok: true as const, pid: process.pid }
          const pid = Number(Fs.readFileSync(file, "utf8").trim())
          if (Number.isFinite(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
            return { file, ok: false as const, pid }
          }
          Fs.rmSync(file, { force: true })
        }
        return { file, ok: false as const, pid: -1 }
      },
      catch: (cause) => new DataDirLocked({ dir, pid: -1, ...({ cause } as {}) })
    }).pipe(Effect.flatMap((r) => r.ok ? Effect.succeed(r.file) : Effect.fail(new DataDirLocked({ dir, pid: r.pid })))),
    (file) => Effect.sync(() => Fs.rmSync(file, { force: true }))
  )
