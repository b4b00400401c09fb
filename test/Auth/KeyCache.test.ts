import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import { KeyCache } from "../../src/Auth/KeyCache.js"
import { hashKey } from "../../src/Auth/Keys.js"
import { KeysRepo } from "../../src/Auth/KeysRepo.js"
import { Supervisor } from "../../src/Supervisor.js"
import { configLayer, uniqueHandle } from "../support/TestApp.js"
import { TestDatabase } from "../support/TestDatabase.js"

/**
 * The key cache over the real key reads, watched: each read is counted, and a test may hold the next read at a gate
 * once it has read (the shape of a revocation that lands while a read is in flight) or make it fail (the database
 * down).
 */
const watch = {
  reads: 0,
  gate: undefined as Deferred.Deferred<void> | undefined,
  failNext: false
}
const WatchedKeysRepo = Layer.effect(
  KeysRepo,
  Effect.map(KeysRepo, (repo) =>
    KeysRepo.make({
      ...repo,
      holders: (hashes, now) =>
        Effect.suspend(() => {
          watch.reads++
          if (watch.failNext) {
            watch.failNext = false
            return Effect.die(new Error("the database is down"))
          }
          const gate = watch.gate
          watch.gate = undefined
          const read = repo.holders(hashes, now)
          return gate === undefined ? read : Effect.tap(read, () => Deferred.await(gate))
        })
    }))
).pipe(Layer.provide(KeysRepo.Default))

const Cache = KeyCache.DefaultWithoutDependencies.pipe(
  Layer.provide(Layer.mergeAll(WatchedKeysRepo, Supervisor.Default)),
  Layer.provideMerge(TestDatabase),
  Layer.provide(configLayer({}))
)

/** A live key of a new account, as sign-up stores it: its hash. */
const newKey = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const key = `sk_test_${uniqueHandle("k")}`
  const [user] = yield* sql<{ id: string }>`INSERT INTO users (handle, user_type, display_name)
    VALUES (${uniqueHandle("kc")}, 'agent', 'Key Cache') RETURNING id`
  yield* sql`INSERT INTO api_keys (key_hash, user_id) VALUES (${hashKey(key)}, ${user!.id})`
  return { hash: hashKey(key), userId: user!.id }
})

const revoke = (hash: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE api_keys SET revoked_at = now() WHERE key_hash = ${hash}`)

const holderId = (found: Option.Option<{ readonly principal: { readonly id: string } }>) =>
  Option.getOrUndefined(Option.map(found, (h) => h.principal.id))

layer(Cache, { excludeTestServices: true })("key cache", (it) => {
  it.effect("concurrent misses of a key share one read; then the key is answered without one until its TTL", () =>
    Effect.gen(function*() {
      const keys = yield* KeyCache
      const { hash, userId } = yield* newKey
      const before = watch.reads
      const now = Date.now()
      const found = yield* Effect.all([keys.get(hash, now), keys.get(hash, now), keys.get(hash, now)], {
        concurrency: "unbounded"
      })
      expect(found.map(holderId)).toEqual([userId, userId, userId])
      expect(watch.reads - before).toBe(1)
      expect(holderId(keys.peek(hash, now + 29_000)!)).toBe(userId)
      expect(holderId(yield* keys.get(hash, now + 29_000))).toBe(userId)
      expect(watch.reads - before).toBe(1)
      // past KEY_CACHE_TTL (30 s): not trusted, read again
      expect(keys.peek(hash, now + 31_000)).toBeUndefined()
      expect(holderId(yield* keys.get(hash, now + 31_000))).toBe(userId)
      expect(watch.reads - before).toBe(2)
    }))

  it.effect("an unknown key is remembered for 2 s, then read again", () =>
    Effect.gen(function*() {
      const keys = yield* KeyCache
      const hash = hashKey(`sk_unknown_${uniqueHandle("u")}`)
      const before = watch.reads
      const now = Date.now()
      expect(Option.isNone(yield* keys.get(hash, now))).toBe(true)
      expect(Option.isNone(keys.peek(hash, now + 1_500)!)).toBe(true)
      expect(watch.reads - before).toBe(1)
      expect(keys.peek(hash, now + 2_500)).toBeUndefined()
      expect(Option.isNone(yield* keys.get(hash, now + 2_500))).toBe(true)
      expect(watch.reads - before).toBe(2)
    }))

  it.effect("a read that an invalidation overtook answers its callers but is not kept: the next call reads again", () =>
    Effect.gen(function*() {
      const keys = yield* KeyCache
      const { hash, userId } = yield* newKey
      const gate = yield* Deferred.make<void>()
      watch.gate = gate
      const now = Date.now()
      const slow = yield* Effect.fork(keys.get(hash, now))
      // the read has read the live key and waits at the gate: the key is revoked and invalidated meanwhile
      while (watch.gate !== undefined) yield* Effect.sleep("5 millis")
      yield* revoke(hash)
      yield* keys.invalidate([hash])
      yield* Deferred.succeed(gate, undefined)
      expect(holderId(yield* Fiber.join(slow))).toBe(userId)
      expect(keys.peek(hash, now)).toBeUndefined()
      expect(Option.isNone(yield* keys.get(hash, now))).toBe(true)
    }))

  it.effect("a settled key invalidated is read again; a failed read is not kept", () =>
    Effect.gen(function*() {
      const keys = yield* KeyCache
      const { hash, userId } = yield* newKey
      const now = Date.now()
      expect(holderId(yield* keys.get(hash, now))).toBe(userId)
      yield* keys.invalidate([hash])
      expect(keys.peek(hash, now)).toBeUndefined()
      watch.failNext = true
      const failed = yield* Effect.exit(keys.get(hash, now))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(keys.peek(hash, now)).toBeUndefined()
      const before = watch.reads
      expect(holderId(yield* keys.get(hash, now))).toBe(userId)
      expect(watch.reads - before).toBe(1)
    }))
})
