import { it, makeMethods } from "@effect/vitest"

/**
 * Runs before every test file (vitest `setupFiles`). @effect/vitest 0.30's `layer(...)` installs its own `effect`,
 * `scoped` and `layer` on vitest's one shared `it` object (Object.assign(V.it, ...)) and never puts them back. With
 * `isolate: false` the files of a worker share that object, so after a file with
 * `layer(app, { excludeTestServices: true })` the next file's top-level `it.effect` ran on that file's (closed)
 * runtime, without the TestClock: "testClock.adjust is not a function". This puts the default methods back (the
 * TestContext per test), as a fresh module graph would. Effect 4's @effect/vitest no longer mutates `it`.
 */
makeMethods(it)
