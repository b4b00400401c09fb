import ipaddr from "ipaddr.js"

export interface RateLimitOptions {
  /** Responses per second refilled into each prefix's bucket. */
  readonly perSecond: number
  readonly burst: number
  /** Every Nth response over the limit goes out as a bare TC=1 reply, so a real client can retry over TCP; 0 never. */
  readonly slip: number
  /** Buckets kept at most; spoofed sources must not grow memory without bound. */
  readonly maxPrefixes?: number | undefined
}

export type Verdict = "send" | "slip" | "drop"

interface Bucket {
  tokens: number
  /** TC=1 replies left: slips refill at the same rate and burst as answers */
  slips: number
  at: number
  over: number
}

/** The /24 (IPv4, also IPv4-mapped IPv6) or /56 (IPv6) a source address belongs to. */
export const prefixOf = (address: string): string => {
  const v4 = address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address
  const dot = v4.lastIndexOf(".")
  if (dot > 0 && !v4.includes(":")) return v4.slice(0, dot)
  try {
    const bytes = ipaddr.parse(address.replace(/%.*$/, "")).toByteArray()
    return bytes.slice(0, 7).map((b) => b.toString(16).padStart(2, "0")).join("")
  } catch {
    return address
  }
}

/** Response rate limiting: a token bucket per source prefix. `now` is in milliseconds. */
export const makeRateLimiter = (options: RateLimitOptions, now: () => number) => {
  const buckets = new Map<string, Bucket>()
  const maxPrefixes = options.maxPrefixes ?? 65536
  const perMs = options.perSecond / 1000

  const refill = (bucket: Bucket, t: number) => {
    if (t === bucket.at) return
    const gained = (t - bucket.at) * perMs
    bucket.tokens = Math.min(options.burst, bucket.tokens + gained)
    bucket.slips = Math.min(options.burst, bucket.slips + gained)
    bucket.at = t
  }

  // drop the buckets that are full again (they carry no state); if all are busy, start over
  const evict = (t: number) => {
    for (const [key, bucket] of buckets) {
      refill(bucket, t)
      if (bucket.tokens >= options.burst && bucket.slips >= options.burst) buckets.delete(key)
    }
    if (buckets.size >= maxPrefixes) buckets.clear()
  }

  const take = (address: string): Verdict => {
    const t = now()
    const key = prefixOf(address)
    let bucket = buckets.get(key)
    if (bucket === undefined) {
      if (buckets.size >= maxPrefixes) evict(t)
      bucket = { tokens: options.burst, slips: options.burst, at: t, over: 0 }
      buckets.set(key, bucket)
    } else {
      refill(bucket, t)
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return "send"
    }
    bucket.over += 1
    // a TC=1 reply is a datagram sent too: a flood from one prefix gets at most the rate's worth of them, so it
    // costs the responder (a send each, on the event loop the API shares) no more than twice the rate per second
    if (options.slip > 0 && bucket.over % options.slip === 0 && bucket.slips >= 1) {
      bucket.slips -= 1
      return "slip"
    }
    return "drop"
  }

  /**
   * Whether the next response to `address` would surely be dropped (no answer and no slip left), counted as a
   * drop if so: the responder then skips decoding the query at all. A prefix it has no bucket for is never.
   */
  const exhausted = (address: string): boolean => {
    const bucket = buckets.get(prefixOf(address))
    if (bucket === undefined || bucket.tokens >= 1) return false
    refill(bucket, now())
    if (bucket.tokens >= 1 || (options.slip > 0 && bucket.slips >= 1)) return false
    bucket.over += 1
    return true
  }

  return {
    take,
    exhausted,
    get size() {
      return buckets.size
    }
  } as const
}

export type RateLimiter = ReturnType<typeof makeRateLimiter>
