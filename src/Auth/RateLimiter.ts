import { Clock, Config, Effect } from "effect"

export interface Decision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** seconds until the bucket is full again */
  readonly reset: number
  /** seconds until one more request is allowed (0 when allowed) */
  readonly retryAfter: number
}

interface Bucket {
  tokens: number
  at: number
}

/**
 * Per-key token bucket: `RATE_LIMIT_PER_MINUTE` tokens (default 600), holding a minute's worth, refilled
 * continuously. In memory per node: a limit is a guard against floods, not a ledger.
 */
export class RateLimiter extends Effect.Service<RateLimiter>()("Auth/RateLimiter", {
  scoped: Effect.gen(function*() {
    const perMinute = yield* Config.integer("RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(600))
    const buckets = new Map<string, Bucket>()

    const take = (key: string, multiplier = 1) =>
      Effect.map(Clock.currentTimeMillis, (now): Decision => {
        const capacity = perMinute * multiplier
        const perMs = capacity / 60_000
        let b = buckets.get(key)
        if (b === undefined) {
          b = { tokens: capacity, at: now }
          buckets.set(key, b)
        } else {
          b.tokens = Math.min(capacity, b.tokens + (now - b.at) * perMs)
          b.at = now
        }
        const allowed = b.tokens >= 1
        if (allowed) b.tokens -= 1
        return {
          allowed,
          limit: capacity,
          remaining: Math.floor(b.tokens),
          reset: Math.ceil((capacity - b.tokens) / perMs / 1000),
          retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000))
        }
      })

    // full buckets carry no information: drop them so the map stays the size of the active keys
    const sweep = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.sync(() => {
        for (const [k, b] of buckets) if (now - b.at > 60_000) buckets.delete(k)
      }))
    yield* sweep.pipe(Effect.delay("1 minute"), Effect.forever, Effect.forkScoped)

    return { take, perMinute } as const
  })
}) {}
