import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"

// The CLI as a person runs it (`npm run shoal -- …` is tsx over src/cli.ts), on a data directory that must stay
// untouched unless a command's input is valid.
const root = Path.resolve(import.meta.dirname, "..")
const run = (args: ReadonlyArray<string>, dataDir: string) => {
  const r = spawnSync(Path.join(root, "node_modules", ".bin", "tsx"), [Path.join(root, "src", "cli.ts"), ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" },
    encoding: "utf8",
    timeout: 60_000
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

describe("the CLI", () => {
  const dataDir = Path.join(Os.tmpdir(), `shoal-cli-${process.pid}-${Date.now()}`)

  it("answers --help without opening the database", () => {
    const r = run(["--help"], dataDir)
    expect(r.code).toBe(0)
    expect(r.out).toContain("account create")
    expect(Fs.existsSync(dataDir)).toBe(false)
  })

  it("a missing option is one line naming it and a non-zero exit, with no data directory made", () => {
    const r = run(["account", "create"], dataDir)
    expect(r.code).not.toBe(0)
    const said = `${r.out}${r.err}`.trim()
    expect(said).toContain("--handle")
    expect(said).not.toContain("_tag")
    expect(Fs.existsSync(dataDir)).toBe(false)
  })

  it("a bad handle is one JSON error line naming the option and the rule, exit 1, with no data directory made", () => {
    const r = run(["account", "create", "--handle", "Bad Handle!"], dataDir)
    expect(r.code).toBe(1)
    const lines = r.err.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({
      status: "error",
      error: { code: "invalid_request", message: expect.stringMatching(/^--handle: /) }
    })
    expect(Fs.existsSync(dataDir)).toBe(false)
  })
})
