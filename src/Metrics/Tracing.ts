import { Config, Effect, Layer, Option } from "effect"

/** Where traces go: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
export const tracesEndpoint = Config.all({
  traces: Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
  base: Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT"))
}).pipe(
  Config.map(({ base, traces }) =>
    Option.orElse(traces, () => Option.map(base, (url) => `${url.replace(/\/+$/, "")}/v1/traces`))
  )
)

/**
 * A span per HTTP request: `HTTP_TRACING` when set, else on exactly when traces are exported. A span per request
 * costs about 30% of throughput, which is worth paying only when someone collects them.
 */
export const httpTracing = Config.boolean("HTTP_TRACING").pipe(
  Config.orElse(() => Config.map(tracesEndpoint, Option.isSome))
)

/**
 * OpenTelemetry traces over OTLP/HTTP (JSON) when an endpoint is configured: the `Effect.fn` spans, the SQL
 * statements' and, with `httpTracing`, each request's, sent in batches as service `OTEL_SERVICE_NAME` (default
 * "shoal"); the exporter reads its other `OTEL_EXPORTER_OTLP_*` settings itself. Unset, this is an empty layer.
 */
export const TracingLive = Layer.unwrapEffect(Effect.gen(function*() {
  const endpoint = yield* tracesEndpoint
  if (Option.isNone(endpoint)) return Layer.empty
  const serviceName = yield* Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("shoal"))
  // loaded only when used: the SDK is a third of a megabyte of code a process without a collector never needs
  const [NodeSdk, { OTLPTraceExporter }, { BatchSpanProcessor }] = yield* Effect.promise(() =>
    Promise.all([
      import("@effect/opentelemetry/NodeSdk"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/sdk-trace-base")
    ])
  )
  return NodeSdk.layer(() => ({
    resource: { serviceName },
    spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint.value }))
  }))
}))
