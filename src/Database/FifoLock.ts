import { Effect } from "effect"

/**
 * First-come-first-served mutex. Ownership is handed straight to the next waiter on release,
 * so a tight loop of readers cannot starve a transaction (Effect's Semaphore let them).
 */
export class FifoLock {
  private locked = false
  private readonly waiters: Array<() => void> = []

  readonly acquire: Effect.Effect<void> = Effect.async<void>((resume) => {
    if (!this.locked) {
      this.locked = true
      return resume(Effect.void)
    }
    let granted = false
    const waiter = () => {
      granted = true
      resume(Effect.void)
    }
    this.waiters.push(waiter)
    return Effect.sync(() => {
      const i = this.waiters.indexOf(waiter)
      if (i >= 0) this.waiters.splice(i, 1)
      // handed the lock in the same tick we were interrupted: pass it on
      else if (granted) this.release()
    })
  })

  release(): void {
    const next = this.waiters.shift()
    if (next) next()
    else this.locked = false
  }

  /** Holds the lock for the lifetime of the current scope. */
  readonly scoped = Effect.acquireRelease(this.acquire, () => Effect.sync(() => this.release()))

  get pending(): number {
    return this.waiters.length
  }
}
