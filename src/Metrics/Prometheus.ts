import { Metric, MetricState, Option } from "effect"
import type { MetricLabel } from "effect"

/** The content type of the text exposition format this writes. */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

// metric and label names must match [a-zA-Z_:][a-zA-Z0-9_:]* (labels without the colon)
const metricName = (name: string) => name.replace(/[^a-zA-Z0-9_:]/g, "_").replace(/^([0-9])/, "_$1")
const labelName = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_").replace(/^([0-9])/, "_$1")
const labelValue = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, "\\\"")
const help = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

// String gives "NaN" as the format spells it, but "Infinity" for +Inf
const number = (n: number | bigint): string =>
  n === Number.POSITIVE_INFINITY ? "+Inf" : n === Number.NEGATIVE_INFINITY ? "-Inf" : String(n)

const labelText = (tags: ReadonlyArray<MetricLabel.MetricLabel>, extra?: readonly [string, string]) => {
  const parts = tags.map((t) => `${labelName(t.key)}="${labelValue(t.value)}"`)
  if (extra !== undefined) parts.push(`${extra[0]}="${labelValue(extra[1])}"`)
  return parts.length === 0 ? "" : `{${parts.join(",")}}`
}

interface Family {
  type: "counter" | "gauge" | "histogram"
  description: string
  readonly samples: Array<string>
}

/**
 * Every registered metric in the Prometheus text format 0.0.4: one `# HELP` and `# TYPE` per name, then its samples.
 * A histogram's buckets are cumulative in Effect already, its last boundary +Inf (MetricBoundaries.fromIterable,
 * which every histogram here is made with). Shoal defines no summary or frequency, so none is written.
 */
export const scrape = (): string => {
  const families = new Map<string, Family>()
  const family = (name: string, type: Family["type"], description: Option.Option<string>) => {
    let f = families.get(name)
    if (f === undefined) {
      families.set(name, f = { type, description: Option.getOrElse(description, () => name), samples: [] })
    }
    return f
  }
  for (const { metricKey: key, metricState: state } of Metric.unsafeSnapshot()) {
    const name = metricName(key.name)
    const tags = key.tags
    if (MetricState.isCounterState(state)) {
      family(name, "counter", key.description).samples.push(`${name}${labelText(tags)} ${number(state.count)}`)
    } else if (MetricState.isGaugeState(state)) {
      family(name, "gauge", key.description).samples.push(`${name}${labelText(tags)} ${number(state.value)}`)
    } else if (MetricState.isHistogramState(state)) {
      const f = family(name, "histogram", key.description)
      for (const [bound, count] of state.buckets) {
        f.samples.push(`${name}_bucket${labelText(tags, ["le", number(bound)])} ${count}`)
      }
      f.samples.push(`${name}_sum${labelText(tags)} ${number(state.sum)}`)
      f.samples.push(`${name}_count${labelText(tags)} ${state.count}`)
    }
  }
  let out = ""
  for (const [name, f] of families) {
    out += `# HELP ${name} ${help(f.description)}\n# TYPE ${name} ${f.type}\n${f.samples.join("\n")}\n`
  }
  return out
}
