// `npm run build`: TypeScript → JavaScript, so the service runs with plain `node dist/src/main.js`.
//
// One tsc program (tsconfig.build.json) compiles the server (src/), migrations/ and the workspace packages it
// imports (packages/domain, packages/client) into <out>/ with the same layout. In development `@shoal/domain`
// resolves through node_modules/@shoal/domain → packages/domain, whose `exports` name the .ts sources (tsx,
// vitest and tsc read those). The compiled tree must not reach them, so <out>/ carries its own resolution:
// <out>/node_modules/@shoal/{domain,client} are links to <out>/packages/{domain,client}, whose package.json
// `exports` name the compiled .js files. Node looks in the nearest node_modules first, so a module under <out>/
// finds the compiled packages, and everything else (effect, pg …) one level up in the project's node_modules.
//
// usage: node scripts/build.mjs [--out DIR]   (DIR relative to the project root; default dist)
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.dirname(Path.dirname(fileURLToPath(import.meta.url)))
const args = process.argv.slice(2)
const outArg = args.indexOf("--out")
const out = Path.resolve(root, outArg >= 0 ? args[outArg + 1] : "dist")
if (out === root || !out.startsWith(root + Path.sep)) {
  // outside the project, node would not find the project's node_modules from the compiled files
  console.error(`build: --out must be a directory inside ${root}`)
  process.exit(2)
}

// a stale file of a deleted source must not survive into a build
Fs.rmSync(out, { recursive: true, force: true })

const tsc = spawnSync(
  process.execPath,
  [Path.join(root, "node_modules/typescript/bin/tsc"), "-p", Path.join(root, "tsconfig.build.json"), "--outDir", out],
  { stdio: "inherit", cwd: root }
)
if (tsc.status !== 0) process.exit(tsc.status ?? 1)

const writeJson = (file, value) => Fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n")

writeJson(Path.join(out, "package.json"), { type: "module" })
for (const name of ["domain", "client"]) {
  const source = JSON.parse(Fs.readFileSync(Path.join(root, "packages", name, "package.json"), "utf8"))
  writeJson(Path.join(out, "packages", name, "package.json"), {
    name: source.name,
    version: source.version,
    private: true,
    type: "module",
    exports: { ".": "./src/index.js", "./*": "./src/*.js" },
    dependencies: source.dependencies
  })
  Fs.mkdirSync(Path.join(out, "node_modules", "@shoal"), { recursive: true })
  Fs.symlinkSync(Path.join("..", "..", "packages", name), Path.join(out, "node_modules", "@shoal", name), "dir")
}

// the console's page, bundled from TypeScript, where the compiled server looks for it (dist/console/dist)
const consoleBuild = spawnSync(
  process.execPath,
  [Path.join(root, "scripts/build-console.mjs"), "--out", Path.join(out, "console", "dist")],
  { stdio: "inherit", cwd: root }
)
if (consoleBuild.status !== 0) process.exit(consoleBuild.status ?? 1)
