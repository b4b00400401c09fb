// The console (console/src, TypeScript) → one JavaScript bundle plus its HTML and CSS, served by Shoal at `/`.
// esbuild bundles the page with what it imports (@shoal/client, the domain schemas, effect): nothing is fetched
// from elsewhere at run time. Runs on `npm install` (prepare), before `npm start`, and inside `npm run build`.
//
// usage: node scripts/build-console.mjs [--out DIR] [--if-stale]   (default console/dist; --if-stale: only when a
// source of the page, the client or the domain is newer than the bundle)
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.dirname(Path.dirname(fileURLToPath(import.meta.url)))
const args = process.argv.slice(2)
const outArg = args.indexOf("--out")
const out = Path.resolve(root, outArg >= 0 ? args[outArg + 1] : "console/dist")

let esbuild
try {
  esbuild = await import("esbuild")
} catch {
  // an install without dev dependencies (a deployed tree) serves the bundle it was shipped with
  if (Fs.existsSync(Path.join(out, "console.js"))) process.exit(0)
  console.error("build-console: esbuild is not installed, so the console cannot be built (npm install first)")
  process.exit(1)
}

const newest = (path) => {
  const stat = Fs.statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...Fs.readdirSync(path).map((name) => newest(Path.join(path, name))))
}
if (args.includes("--if-stale") && Fs.existsSync(Path.join(out, "console.js"))) {
  const built = Fs.statSync(Path.join(out, "console.js")).mtimeMs
  const sources = ["console/src", "console/index.html", "console/style.css", "packages/domain/src", "packages/client/src"]
  if (sources.every((s) => newest(Path.join(root, s)) <= built)) process.exit(0)
}

Fs.mkdirSync(out, { recursive: true })
const started = Date.now()
const result = await esbuild.build({
  entryPoints: [Path.join(root, "console/src/main.ts")],
  outfile: Path.join(out, "console.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  metafile: true
})
for (const file of ["index.html", "style.css"]) Fs.copyFileSync(Path.join(root, "console", file), Path.join(out, file))
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0)
console.log(`console built into ${Path.relative(root, out)} (${Math.round(bytes / 1024)} KiB, ${Date.now() - started} ms)`)
