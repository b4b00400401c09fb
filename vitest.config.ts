import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

// The files that take minutes (the fuzz, the kill -9 runs, the process and browser tests) go first: on a clean
// checkout vitest has no timings and would order by file size, leaving the two small fuzz files for last.
const slowFirst = [
  "Http/Fuzz",
  "Crash",
  "Nodes",
  "Console/Browser",
  "Console/Cockpit",
  "Build",
  "Process",
  "Wallet/Concurrency"
]
const rank = (file: string) => {
  const i = slowFirst.findIndex((name) => file.includes(`/test/${name}`))
  return i < 0 ? slowFirst.length : i
}

class SlowFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>) {
    const sorted = await super.sort(files)
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec.moduleId) - rank(b.spec.moduleId) || a.i - b.i)
      .map(({ spec }) => spec)
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/globalSetup.ts"],
    // before each file: puts back the @effect/vitest methods a `layer(...)` of an earlier file replaced (see there)
    setupFiles: ["test/support/ResetEffectVitest.ts"],
    testTimeout: 60_000,
    // no Wave clock on the live clock in any test process or server a test starts: on a shared PostgreSQL its
    // claimed hours (today's) would move the TestClock-driven clock tests decades ahead; those start their own
    env: { WAVE_CLOCK: "false" },
    hookTimeout: 120_000,
    pool: "forks",
    // the files of a worker share its module graph: importing the app again for each of ~80 files took 246 s
    // (embedded) and 219 s (server) of CI's worker time. What a file leaves behind in the shared modules is put back
    // by the setup file above (@effect/vitest's `it`); the app's own module state is caches only.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    sequence: { sequencer: SlowFirst }
  }
})
