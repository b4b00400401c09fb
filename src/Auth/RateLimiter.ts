import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Errors, type Ids } from "@shoal/domain"
import { Clock, Config, Effect } from "effect"
import { Supervisor } from "../Supervisor.js"
import { requestKey } from "./Caller.js"

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
  capacity: number
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/** Takes a token from `key`'s bucket of `capacity` tokens, refilled continuously over `windowMs`. */
const takeFrom = (buckets: Map<string, Bucket>, key: string, capacity: number, windowMs: number, now: number) => {
  const perMs = capacity / windowMs
  let b = buckets.get(key)
  if (b === undefined) {
    b = { tokens: capacity, at: now, capacity }
    buckets.set(key, b)
  } else {
    // a bucket that grows (a premium limit bought) gains the difference at once; one that shrinks loses it
    if (b.capacity !== capacity) {
      b.tokens = Math.max(0, b.tokens + capacity - b.capacity)
      b.capacity = capacity
    }
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
}

/**
 * Token buckets, in memory per node (a limit is a guard against floods, not a ledger), refilled continuously: per
 * account (CONTRACT "Who may do what": rotating a key keeps the account's bucket), `RATE_LIMIT_PER_MINUTE` a minute
 * (default 600); per client address for public sign-up, `SIGNUP_RATE_LIMIT` an hour (default 20, `0` = no limit).
 */
export class RateLimiter extends Effect.Service<RateLimiter>()("Auth/RateLimiter", {
  scoped: Effect.gen(function*() {
    const perMinute = yield* Config.integer("RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(600))
    const signUpsPerHour = yield* Config.integer("SIGNUP_RATE_LIMIT").pipe(Config.withDefault(20))
    const supervisor = yield* Supervisor
    const buckets = new Map<string, Bucket>()
    const signUpBuckets = new Map<string, Bucket>()

    // keyed by the account's id, never by its key: a rotated key would otherwise start a full bucket
    const takeAt = (account: Ids.UserId, multiplier: number, now: number): Decision =>
      takeFrom(buckets, account, perMinute * multiplier, MINUTE, now)
    const take = (account: Ids.UserId, multiplier = 1) =>
      Effect.map(Clock.currentTimeMillis, (now) => takeAt(account, multiplier, now))

    /** A sign-up from `address`; undefined when sign-ups are not limited. */
    const takeSignUp = (address: string) =>
      Effect.map(
        Clock.currentTimeMillis,
        (now): Decision | undefined =>
          signUpsPerHour > 0 ? takeFrom(signUpBuckets, address, signUpsPerHour, HOUR, now) : undefined
      )

    // full buckets carry no information: drop them so the maps stay the size of the active keys and addresses
    const sweep = Effect.map(Clock.currentTimeMillis, (now) => {
      for (const [k, b] of buckets) if (now - b.at > MINUTE) buckets.delete(k)
      for (const [k, b] of signUpBuckets) if (now - b.at > HOUR) signUpBuckets.delete(k)
    })
    yield* supervisor.every("rate-limiter", "sweep", "1 minute", sweep)

    return { take, takeAt, takeSignUp } as const
  })
}) {}

// the decision each request in flight was given, by its source (requestKey), for the API's wrapper to put on the
// answer; gone with it
const decisions = new WeakMap<object, Decision>()

/** `decision`'s rate-limit headers to go on `request`'s answer, whatever it is (see `enforceOn`). */
export const noteDecision = (request: HttpServerRequest.HttpServerRequest, decision: Decision): void => {
  decisions.set(requestKey(request), decision)
}

/** The contract's `rate_limited` for a call `decision` refused; `per` names the window in the message. */
export const rateLimited = (decision: Decision, per: string) =>
  new Errors.RateLimited({
    message: `rate limit of ${decision.limit} ${per} exceeded; retry after ${decision.retryAfter} s`,
    details: { retry_after: decision.retryAfter }
  })

/**
 * The contract's rate-limit answer for `request`: `RateLimit-Limit/Remaining/Reset` on the response whatever it is
 * (put there by the API's wrapper, `withRateLimitHeaders`), and past the limit a 429 `rate_limited` with `Retry-After`.
 */
export const enforceOn = (
  request: HttpServerRequest.HttpServerRequest,
  decision: Decision,
  per: string
): Effect.Effect<void, Errors.RateLimited> => {
  noteDecision(request, decision)
  return decision.allowed ? Effect.void : Effect.fail(rateLimited(decision, per))
}

/** `enforceOn` the request being handled. */
export const enforce = (decision: Decision, per: string) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => enforceOn(request, decision, per))

/**
 * `response` with the rate-limit headers of the decision `request` was given, if any. Set one at a time: the
 * platform's `setHeaders` copies its record twice, 4-5x the cost (bench/README.md, "The one path, profiled").
 */
export const withRateLimitHeaders = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  const decision = decisions.get(requestKey(request))
  if (decision === undefined) return response
  let limited = HttpServerResponse.setHeader(response, "ratelimit-limit", String(decision.limit))
  limited = HttpServerResponse.setHeader(limited, "ratelimit-remaining", String(decision.remaining))
  limited = HttpServerResponse.setHeader(limited, "ratelimit-reset", String(decision.reset))
  return decision.allowed ? limited : HttpServerResponse.setHeader(limited, "retry-after", String(decision.retryAfter))
}
