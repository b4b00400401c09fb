import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The console's built files (scripts/build-console.mjs). Beside the sources they are `console/dist/`; in the
 * compiled tree (`npm run build`) `dist/console/dist/`: the same path relative to this module either way.
 */
const dir = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../console/dist")

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".map": "application/json"
}

/** Every file of the build, read once: a few hundred kilobytes, served from memory. Empty when it was not built. */
export const loadAssets = () => {
  const assets = new Map<string, { readonly body: Uint8Array; readonly contentType: string }>()
  if (!Fs.existsSync(dir)) return assets
  for (const name of Fs.readdirSync(dir)) {
    const type = TYPES[Path.extname(name)]
    if (type === undefined) continue
    assets.set(name, { body: Fs.readFileSync(Path.join(dir, name)), contentType: type })
  }
  return assets
}
