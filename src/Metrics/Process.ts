import { Effect, Layer, Metric } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { labels, none, sampler } from "./Metrics.js"

const rss = Metric.gauge("process_resident_memory_bytes", { description: "Resident memory of the process" })
const heap = Metric.gauge("nodejs_heap_bytes", {
  description: "V8 heap: state=used, state=total (reserved); external: memory of Buffers and other C++ objects"
})
const cpu = Metric.counter("process_cpu_seconds_total", {
  description: "CPU time the process used, user and system",
  incremental: true
})
const loopDelay = Metric.gauge("nodejs_eventloop_delay_seconds", {
  description: "Event-loop delay since the previous scrape: stat=p50, stat=p99, stat=max"
})

// module state, shared by every app in the process (tests run several): the counter grows by what the process used
let lastCpu = 0

/**
 * Memory, CPU and event-loop delay of this process, read at each scrape. The loop delay comes from Node's own
 * histogram (`monitorEventLoopDelay`, sampled every 20 ms in libuv, not by a timer of ours) and is reset at each
 * scrape, so each figure covers the time since the last one.
 */
export const ProcessMetricsLive = Layer.scopedDiscard(Effect.gen(function*() {
  const delay = yield* Effect.acquireRelease(
    Effect.tap(Effect.sync(() => monitorEventLoopDelay({ resolution: 20 })), (h) => h.enable()),
    (h) => Effect.sync(() => h.disable())
  )
  yield* sampler(Effect.sync(() => {
    const memory = process.memoryUsage()
    rss.unsafeUpdate(memory.rss, none)
    heap.unsafeUpdate(memory.heapUsed, labels("state", "used"))
    heap.unsafeUpdate(memory.heapTotal, labels("state", "total"))
    heap.unsafeUpdate(memory.external, labels("state", "external"))
    const usage = process.cpuUsage()
    const seconds = (usage.user + usage.system) / 1e6
    cpu.unsafeUpdate(seconds - lastCpu, none)
    lastCpu = seconds
    // nanoseconds; a histogram with no sample yet reports NaN and a huge min
    if (delay.count > 0) {
      loopDelay.unsafeUpdate(delay.percentile(50) / 1e9, labels("stat", "p50"))
      loopDelay.unsafeUpdate(delay.percentile(99) / 1e9, labels("stat", "p99"))
      loopDelay.unsafeUpdate(delay.max / 1e9, labels("stat", "max"))
    }
    delay.reset()
  }))
}))
