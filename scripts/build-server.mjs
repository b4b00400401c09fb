// The server (src/main.ts) → one minified JavaScript bundle, build/server/main.js, which `npm start` runs with plain
// node. Under a TypeScript loader (tsx) or as tsc's output the server loads ~1,500 modules whose source text Node
// keeps in the heap (~27 MB) beside the loader's own; bundled and minified that is one file of a few MB. Code only
// imported on demand (the Swagger UI page of /docs) goes to a chunk of its own, loaded on the first request.
//
// Left outside the bundle: PGlite, which finds its wasm and data files next to its own module, and the optional
// native add-ons of pg and ws. The bundle sits two levels below the project root, as src/Console/Assets.ts expects
// of the module it is compiled into (the console's page in console/dist).
//
// usage: node scripts/build-server.mjs [--if-stale]   (--if-stale: only when a source of the server, its
// migrations or the workspace packages, or package.json, is newer than the bundle)
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.dirname(Path.dirname(fileURLToPath(import.meta.url)))
const out = Path.join(root, "build", "server")
const bundle = Path.join(out, "main.js")
const args = process.argv.slice(2)

const newest = (path) => {
  if (!Fs.existsSync(path)) return 0
  const stat = Fs.statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...Fs.readdirSync(path).map((name) => newest(Path.join(path, name))))
}
if (args.includes("--if-stale") && Fs.existsSync(bundle)) {
  const built = Fs.statSync(bundle).mtimeMs
  const sources = [
    "src",
    "migrations",
    "packages/domain/src",
    "packages/client/src",
    "package.json",
    "package-lock.json",
    "scripts/build-server.mjs"
  ]
  if (sources.every((s) => newest(Path.join(root, s)) <= built)) process.exit(0)
}

let esbuild
try {
  esbuild = await import("esbuild")
} catch {
  if (Fs.existsSync(bundle)) process.exit(0)
  console.error("build-server: esbuild is not installed, so the server cannot be bundled (npm install first)")
  process.exit(1)
}

const started = Date.now()
// built beside, then swapped in: a server starting meanwhile never sees half a bundle
const next = `${out}.next-${process.pid}`
Fs.rmSync(next, { recursive: true, force: true })
const result = await esbuild.build({
  entryPoints: { main: Path.join(root, "src/main.ts") },
  outdir: next,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // whitespace and syntax only: identifiers keep the names they were written with, so log and error messages name
  // the classes (Effect's tagged errors print them) without esbuild's `keepNames`, which redefines `name` on every
  // function the bundle creates at run time: ~256 bytes of property dictionary on each closure (7 an idle agent)
  // and a defineProperty each time one is made
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  external: ["@electric-sql/pglite", "@electric-sql/pglite/*", "pg-native", "bufferutil", "utf-8-validate"],
  // the CommonJS packages in the bundle (pg, ws …) call require() for Node's own modules
  banner: { js: "import { createRequire as __shoalRequire } from 'node:module'; const require = __shoalRequire(import.meta.url);" }
})
Fs.rmSync(out, { recursive: true, force: true })
Fs.mkdirSync(Path.dirname(out), { recursive: true })
try {
  Fs.renameSync(next, out)
} catch (e) {
  // another build of the same sources (two `npm start` at once) swapped its bundle in first
  Fs.rmSync(next, { recursive: true, force: true })
  if (!Fs.existsSync(bundle)) throw e
}
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0)
console.log(`server built into ${Path.relative(root, out)} (${Math.round(bytes / 1024)} KiB, ${Date.now() - started} ms)`)
