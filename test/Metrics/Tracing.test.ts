import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort } from "../../bench/support.js"
import { start, stop, waitHealthy } from "../support/Process.js"

interface OtlpSpan {
  readonly name: string
  readonly kind: number
  readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}
interface Received {
  readonly service: string | undefined
  readonly span: OtlpSpan
}

/** An OTLP/HTTP collector that understands the JSON encoding: every span it is sent, with its service name. */
const collector = async () => {
  const received: Array<Received> = []
  const server = Http.createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        for (const rs of JSON.parse(body).resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a: any) => a.key === "service.name")?.value?.stringValue
          for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) received.push({ service, span })
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { received, port: (server.address() as AddressInfo).port, close: () => server.close() }
}

const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value

describe("tracing", () => {
  it("sends the service's spans to OTEL_EXPORTER_OTLP_ENDPOINT, HTTP requests and Effect.fn spans", {
    timeout: 120_000
  }, async () => {
    const otlp = await collector()
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-otel-"))
    const [port, walletPort] = await Promise.all([freePort(), freePort()])
    const base = `http://127.0.0.1:${port}`
    const proc = start({
      DATA_DIR: dataDir,
      PORT: String(port),
      WALLET_PORT: String(walletPort),
      HOST: "127.0.0.1",
      DNS_PORT: "0",
      // through the router, where request spans are made (the lanes answer ahead of it)
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp.port}`,
      // the SDK's batch delay (5 s by default), read by it from the environment
      OTEL_BSP_SCHEDULE_DELAY: "200"
    })
    try {
      await waitHealthy(base, proc)
      const created = await fetch(`${base}/api/accounts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ handle: `otel${Date.now().toString(36)}`, display_name: "Traced" })
      })
      expect(created.status).toBe(201)
      const until = Date.now() + 30_000
      const requestSpan = () =>
        otlp.received.find(({ span }) =>
          span.kind === 2 && attribute(span, "http.request.method")?.stringValue === "POST" &&
          attribute(span, "http.route")?.stringValue === "/api/accounts"
        )
      while (Date.now() < until && requestSpan() === undefined) await new Promise((r) => setTimeout(r, 200))
      expect(requestSpan(), `spans: ${otlp.received.map((r) => r.span.name).join(", ")}`).toBeDefined()
      expect(new Set(otlp.received.map((r) => r.service))).toEqual(new Set(["shoal"]))
      // an Effect.fn span ("Service.method") and the statements below it
      expect(otlp.received.some(({ span }) => /^[A-Z][A-Za-z]+\.[a-z][A-Za-z]+$/.test(span.name))).toBe(true)
      expect(otlp.received.some(({ span }) => span.name === "sql.execute")).toBe(true)
      expect(await stop(proc.child, proc.output)).toBe(0)
    } finally {
      if (proc.child.exitCode === null) proc.child.kill("SIGKILL")
      otlp.close()
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
