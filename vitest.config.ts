import { defineConfig } from "vitest/config"

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
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
