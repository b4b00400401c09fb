/**
 * dnsperf (DNS-OARC, Debian package `dnsperf`) as a load generator for bench/dns-nsd.ts: installed with apt-get
 * when missing and possible, run for a slice against one server, its summary parsed.
 */
import { execFile, spawnSync } from "node:child_process"

const has = (binary: string) => spawnSync("sh", ["-c", `command -v ${binary}`]).status === 0

/**
 * Makes sure each binary is there, installing the Debian packages that hold them when not (as root, or through
 * `sudo -n`). The reason it cannot, or null when all are there.
 */
export const ensureInstalled = (wanted: ReadonlyArray<{ binary: string; pkg: string }>): string | null => {
  const missing = wanted.filter((w) => !has(w.binary))
  if (missing.length === 0) return null
  const packages = missing.map((m) => m.pkg)
  if (!has("apt-get")) return `${packages.join(", ")} missing and no apt-get to install them`
  const asRoot = process.getuid?.() === 0
  if (!asRoot && !has("sudo")) return `${packages.join(", ")} missing; installing needs root`
  console.log(`installing ${packages.join(" ")} (apt-get)…`)
  const command = asRoot ? "apt-get" : "sudo"
  const args = [...(asRoot ? [] : ["-n", "apt-get"]), "install", "-y", "--no-install-recommends", ...packages]
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  let result = spawnSync(command, args, { stdio: "inherit", env })
  if (result.status !== 0) {
    // a fresh machine may have no package lists yet
    spawnSync(command, [...(asRoot ? [] : ["-n", "apt-get"]), "update"], { stdio: "inherit", env })
    result = spawnSync(command, args, { stdio: "inherit", env })
  }
  const still = missing.filter((m) => !has(m.binary))
  return still.length === 0 ? null : `could not install ${still.map((m) => m.pkg).join(", ")}`
}

export interface DnsperfOptions {
  readonly port: number
  /** dnsperf's data file: one `name type` per line, replayed in a loop. */
  readonly queryFile: string
  readonly seconds: number
  /** Simulated clients (each its own UDP socket). */
  readonly clients: number
  /** Queries outstanding at most. */
  readonly outstanding: number
}

export interface DnsperfResult {
  readonly sent: number
  readonly completed: number
  readonly lost: number
  readonly qps: number
  readonly runSeconds: number
  /** Answers other than NOERROR (dnsperf's response codes line); non-empty means the query file did not match. */
  readonly otherRcodes: string
}

const number = (output: string, pattern: RegExp) => {
  const match = pattern.exec(output)
  if (match === null) throw new Error(`dnsperf output without ${pattern}:\n${output}`)
  return Number(match[1])
}

/** One dnsperf run of `seconds` against 127.0.0.1:port. */
export const dnsperf = (options: DnsperfOptions) =>
  new Promise<DnsperfResult>((resolve, reject) => {
    const args = [
      ...["-s", "127.0.0.1", "-p", String(options.port), "-d", options.queryFile],
      ...["-l", String(options.seconds), "-c", String(options.clients), "-q", String(options.outstanding)],
      ...["-T", "1", "-t", "2"]
    ]
    execFile("dnsperf", args, { timeout: (options.seconds + 30) * 1000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`dnsperf failed: ${error.message}\n${stderr}`))
      try {
        const codes = /Response codes:\s*(.*)/.exec(stdout)?.[1] ?? ""
        resolve({
          sent: number(stdout, /Queries sent:\s*(\d+)/),
          completed: number(stdout, /Queries completed:\s*(\d+)/),
          lost: number(stdout, /Queries lost:\s*(\d+)/),
          qps: number(stdout, /Queries per second:\s*([\d.]+)/),
          runSeconds: number(stdout, /Run time \(s\):\s*([\d.]+)/),
          otherRcodes: codes.split(",").map((c) => c.trim()).filter((c) => c !== "" && !c.startsWith("NOERROR"))
            .join(", ")
        })
      } catch (e) {
        reject(e)
      }
    })
  })
