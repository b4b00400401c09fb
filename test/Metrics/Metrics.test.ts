import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { rawRequest } from "../support/Raw.js"
import { emit, openSocket, RealtimeApp, waitFor, waitForEffect } from "../support/Realtime.js"
import { createAgent, signUp } from "../support/TestApp.js"

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const metricName = "[a-zA-Z_:][a-zA-Z0-9_:]*"
const labelPair = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`
const value = "(?:[-+]?(?:[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?)|[-+]Inf|NaN)"
const sampleLine = new RegExp(`^(${metricName})(?:\\{((?:${labelPair})(?:,${labelPair})*)?\\})? (${value})$`)
const helpLine = new RegExp(`^# HELP (${metricName}) .*$`)
const typeLine = new RegExp(`^# TYPE (${metricName}) (counter|gauge|histogram|summary|untyped)$`)

/** Parses the text format 0.0.4, failing on any line that is not valid in it. */
const parse = (text: string) => {
  const types = new Map<string, string>()
  const samples: Array<Sample> = []
  expect(text.endsWith("\n")).toBe(true)
  for (const line of text.slice(0, -1).split("\n")) {
    const type = typeLine.exec(line)
    if (type !== null) {
      expect(types.has(type[1]!), `one TYPE for ${type[1]}`).toBe(false)
      types.set(type[1]!, type[2]!)
      continue
    }
    if (helpLine.test(line)) continue
    const sample = sampleLine.exec(line)
    expect(sample, `a valid line: ${line}`).not.toBeNull()
    const labels: Record<string, string> = {}
    for (const m of (sample![2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[m[1]!] = m[2]!.replace(/\\n/g, "\n").replace(/\\(.)/g, "$1")
    }
    const v = sample![3]!
    samples.push({ name: sample![1]!, labels, value: v === "+Inf" ? Infinity : v === "-Inf" ? -Infinity : Number(v) })
  }
  return { types, samples }
}

const withoutLe = (labels: Readonly<Record<string, string>>) =>
  JSON.stringify(Object.entries(labels).filter(([k]) => k !== "le").sort())

/** Every histogram: buckets in rising `le`, cumulative counts, a +Inf bucket equal to `_count`. */
const checkHistograms = (parsed: ReturnType<typeof parse>) => {
  let checked = 0
  for (const [name, type] of parsed.types) {
    if (type !== "histogram") continue
    const series = new Map<string, Array<Sample>>()
    for (const s of parsed.samples.filter((s) => s.name === `${name}_bucket`)) {
      const key = withoutLe(s.labels)
      series.set(key, [...(series.get(key) ?? []), s])
    }
    for (const [key, buckets] of series) {
      const les = buckets.map((b) => Number(b.labels.le === "+Inf" ? Infinity : b.labels.le))
      expect(les).toEqual([...les].sort((a, b) => a - b))
      for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value)
      expect(buckets.at(-1)!.labels.le).toBe("+Inf")
      const count = parsed.samples.find((s) => s.name === `${name}_count` && withoutLe(s.labels) === key)
      expect(count?.value).toBe(buckets.at(-1)!.value)
      expect(parsed.samples.some((s) => s.name === `${name}_sum` && withoutLe(s.labels) === key)).toBe(true)
      checked++
    }
  }
  return checked
}

const scrape = (headers: Record<string, string> = {}) =>
  Effect.map(rawRequest("GET", "/metrics", { headers }), (res) => {
    expect(res.status).toBe(200)
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/)
    return parse(res.text)
  })

const find = (parsed: ReturnType<typeof parse>, name: string, labels: Record<string, string> = {}) =>
  parsed.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ??
    0

const meRequests = (parsed: ReturnType<typeof parse>) =>
  find(parsed, "shoal_http_requests_total", { route: "/api/agent/me", method: "GET", status: "2xx" })

layer(RealtimeApp({}), { excludeTestServices: true })("GET /metrics", (it) => {
  it.effect("is valid exposition text whose route counter, latency and socket gauges move with traffic", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      const before = yield* scrape()
      for (let i = 0; i < 3; i++) {
        expect((yield* rawRequest("GET", "/api/agent/me", { key: agent.api_key })).status).toBe(200)
      }
      // a parameter in the path: counted under its template, not the handle
      yield* rawRequest("GET", `/api/agent/users/${agent.agent.handle}`, { key: agent.api_key })
      yield* rawRequest("GET", "/no/such/route")

      const socket = yield* openSocket({ key: agent.api_key })
      yield* waitFor("socket open", () => socket.opened || undefined)
      yield* emit([agent.agent.id], "test.metrics", { n: 1 })
      yield* waitFor("event delivered", () => socket.frames.find((f) => f.type === "event"))

      const during = yield* scrape()
      expect(checkHistograms(during)).toBeGreaterThan(0)
      expect(meRequests(during) - meRequests(before)).toBe(3)
      const meLatency = { route: "/api/agent/me", method: "GET", status: "2xx" }
      expect(
        find(during, "shoal_http_request_duration_seconds_count", meLatency) -
          find(before, "shoal_http_request_duration_seconds_count", meLatency)
      ).toBe(3)
      expect(find(during, "shoal_http_requests_total", { route: "/api/agent/users/:handle", status: "2xx" }))
        .toBeGreaterThan(0)
      expect(during.samples.some((s) => s.labels.route === `/api/agent/users/${agent.agent.handle}`)).toBe(false)
      expect(find(during, "shoal_http_requests_total", { route: "unmatched", status: "4xx" })).toBeGreaterThan(0)
      expect(find(during, "shoal_connected_sockets")).toBeGreaterThanOrEqual(1)
      expect(find(during, "shoal_connected_agents")).toBeGreaterThanOrEqual(1)
      expect(find(during, "shoal_event_delivery_lag_seconds_count")).toBeGreaterThan(
        find(before, "shoal_event_delivery_lag_seconds_count")
      )
      expect(find(during, "shoal_db_statement_duration_seconds_count")).toBeGreaterThan(0)
      expect(during.types.get("shoal_webhook_queue_depth")).toBe("gauge")
      expect(during.types.get("shoal_db_pool_connections")).toBe("gauge")
      expect(find(during, "process_resident_memory_bytes")).toBeGreaterThan(0)
      expect(find(during, "process_cpu_seconds_total")).toBeGreaterThan(0)
      expect(during.types.get("nodejs_eventloop_delay_seconds")).toBe("gauge")

      const sockets = find(during, "shoal_connected_sockets")
      yield* socket.close()
      yield* waitForEffect(
        "the socket gauge to drop",
        Effect.map(scrape(), (after) => find(after, "shoal_connected_sockets") < sockets || undefined)
      )
    }).pipe(Effect.scoped))
})

layer(RealtimeApp({ METRICS_TOKEN: "s3cret-scraper" }), { excludeTestServices: true })("GET /metrics", (it) => {
  it.effect("asks for METRICS_TOKEN as a bearer when it is set, and no agent key", () =>
    Effect.gen(function*() {
      expect((yield* rawRequest("GET", "/metrics")).status).toBe(401)
      expect((yield* rawRequest("GET", "/metrics", { key: "wrong" })).status).toBe(401)
      const human = yield* signUp()
      // an agent key is not the operator's token
      expect((yield* rawRequest("GET", "/metrics", { key: human.api_key })).status).toBe(401)
      const parsed = yield* scrape({ authorization: "Bearer s3cret-scraper" })
      expect(parsed.types.get("shoal_http_requests_total")).toBe("counter")
    }))
})
