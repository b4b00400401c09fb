import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

// The files that take minutes (the fuzz, the kill -9 runs, the process and browser tests) go first: on a clean
// checkout vitest has no timings and would order by file size, leaving the two small fuzz files for last.
const slowFirst = ["Http/Fuzz", "Crash", "Nodes", "Console/Browser", "Build", "Process", "Wallet/Concurrency"]
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
    testTimeout: 60_000,
    // no Wave clock on the live clock in any test process or server a test starts: on a shared PostgreSQL its
    // claimed hours (today's) would move the TestClock-driven clock tests decades ahead; those start their own
    env: { WAVE_CLOCK: "false" },
    hookTimeout: 120_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    sequence: { sequencer: SlowFirst }
  }
})
