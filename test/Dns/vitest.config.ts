import { defineConfig } from "vitest/config"

// Runs only the DNS tests, without the root globalSetup (the database): npx vitest run -c test/Dns/vitest.config.ts
export default defineConfig({
  root: new URL("../..", import.meta.url).pathname,
  test: {
    include: ["test/Dns/**/*.test.ts"],
    testTimeout: 60_000,
    pool: "forks"
  }
})
