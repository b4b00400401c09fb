import { Data } from "effect"
import type { Reason } from "../Database/Unavailable.js"

/**
 * A service this process depends on (the wallet, when it runs alone) could not be reached or did not answer in time:
 * like the database being down, not a bug in the request. Raised as a defect; the error envelope answers it 503
 * `unavailable` with Retry-After, so the client comes back rather than taking it for a failure of its own.
 */
export class DependencyUnavailable extends Data.TaggedError("DependencyUnavailable")<{
  readonly dependency: "wallet"
  readonly reason: Reason
  readonly cause?: unknown
}> {
  override get message() {
    return this.reason === "timeout"
      ? `the ${this.dependency} did not answer in time`
      : `the ${this.dependency} is unreachable`
  }
}
