import { SqlError } from "@effect/sql/SqlError"
import { PGlite, type PGliteOptions } from "@electric-sql/pglite"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"

/**
 * PGlite's start parameters, with shared buffers at 16 MB rather than 128 MB: PGlite's shared memory is wasm memory
 * touched at start, so the whole pool was resident (~150 MB) idle or not. Pages beyond it are still read from the
 * kernel's page cache (PGlite reads its files through Node's fs).
 */
export const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

/**
 * A new data directory is initialised (initdb) in a child process that exits when done; the server then opens the
 * finished directory. In process, initdb's second wasm instance (a peak near 900 MB) was only partly given back.
 */
export const initialiseIfNew = (dataDir: string): Effect.Effect<WasmModule | undefined, SqlError> =>
  Effect.suspend(() =>
    Fs.existsSync(Path.join(dataDir, "PG_VERSION"))
      ? Effect.succeed(undefined)
      // meanwhile the server's own PGlite module is compiled, which the child's run does not leave behind
      : Effect.map(Effect.all([initdb(dataDir), compileServer], { concurrency: 2 }), ([, module]) => module)
  )

// PGlite's CommonJS build, which a script can require wherever the server runs from (tsx, vitest, the bundle)
const pgliteModule = () => createRequire(import.meta.url).resolve("@electric-sql/pglite")

/** A compiled wasm module, as PGlite takes one (the project's TypeScript libraries have no WebAssembly). */
type WasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>

const wasm = (globalThis as unknown as { WebAssembly: { compile: (b: Uint8Array) => Promise<WasmModule> } })
  .WebAssembly

const compileServer = Effect.tryPromise({
  try: () => Fs.promises.readFile(Path.join(Path.dirname(pgliteModule()), "pglite.wasm")).then((b) => wasm.compile(b)),
  catch: (cause) => new SqlError({ cause, message: "PGlite: could not compile pglite.wasm" })
})

const initdb = (dataDir: string) =>
  Effect.async<void, SqlError>((resume) => {
    const script = `const { PGlite } = require(${JSON.stringify(pgliteModule())})
PGlite.create(${JSON.stringify({ dataDir, startParams })}).then((db) => db.close())`
    // no execArgv: the child needs no TypeScript loader, nor the parent's flags
    const child = spawn(process.execPath, ["-e", script], {
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    child.once(
      "error",
      (cause) => resume(Effect.fail(new SqlError({ cause, message: "PGlite: could not start initdb" })))
    )
    child.once("exit", (code, signal) =>
      resume(
        code === 0 ? Effect.void : Effect.fail(
          new SqlError({
            cause: stderr,
            message: `PGlite: initdb of ${dataDir} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`
          })
        )
      ))
    return Effect.sync(() => child.kill("SIGKILL"))
  })
