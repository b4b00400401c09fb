/**
 * Admission of work to a resource that absorbs a bounded rate (here: the write path, which on the embedded database
 * runs one transaction at a time): at most `concurrency` admitted at once, the rest waiting in a bounded FIFO queue,
 * and CoDel's test for a standing queue deciding when new arrivals are shed at once rather than queued.
 *
 * A burst waits its turn (up to `maxQueue`). Only a queue that has stood (every request taken from it during a whole
 * `interval` had waited longer than `target`) turns arrivals away, until a request is taken after waiting less than
 * `target` or the queue empties: however long an overload lasts, the queue holds about `target` plus an `interval`'s
 * arrivals, the requests it admits keep their latency, and the rest are told at once to come back.
 *
 * A queue shorter than `concurrency` is never shed, however slow: up to twice `concurrency` clients writing in a
 * closed loop are all served. Beyond that, an arrival is also shed when the queue ahead and the requests in flight
 * would take longer than `maxWait` to drain at the recent pace (the first seconds of an overload, before CoDel has
 * seen an interval). A request whose turn comes after it waited longer than `maxWait` is shed then instead of run:
 * its client has likely given up (or met the server's deadline), and running it would apply a write no one was told of.
 *
 * Times are passed in (ms): a plain state machine, deterministic to test, with no timers.
 */
export interface AdmissionOptions {
  /** requests admitted at once, at most */
  readonly concurrency: number
  /**
   * requests admitted at once, at least (default: `concurrency`). Between the two the slots follow the recent pace
   * (Little's law): as many as it serves in half of `maxWait`, so those in flight and as many queued drain in time
   */
  readonly minConcurrency?: number
  /** CoDel's target: a queue whose requests waited less than this is not standing (ms) */
  readonly target: number
  /** CoDel's interval: how long the queue must stand above `target` before arrivals are shed (ms) */
  readonly interval: number
  /** a request that waited this long in the queue is shed when its turn comes (ms) */
  readonly maxWait: number
  /** arrivals beyond this many waiting are shed */
  readonly maxQueue: number
}

/** How a waiting request ends: run (it holds a slot, to be released) or shed (it never held one). */
export type Outcome = "run" | "shed"

interface Waiter {
  readonly at: number
  /** queued behind fewer than `concurrency` others: never shed */
  readonly kept: boolean
  readonly resume: (outcome: Outcome) => void
  gone: boolean
}

export type Arrival =
  | { readonly _tag: "Run" }
  | { readonly _tag: "Shed"; readonly reason: "standing" | "predicted" | "full" }
  | { readonly _tag: "Queued"; readonly cancel: () => void }

/** busy milliseconds over which the pace is measured */
const paceWindow = 100

const run: Arrival = { _tag: "Run" }
const standing: Arrival = { _tag: "Shed", reason: "standing" }
const full: Arrival = { _tag: "Shed", reason: "full" }
const predicted: Arrival = { _tag: "Shed", reason: "predicted" }

export class AdmissionQueue {
  private inFlight = 0
  private waiters: Array<Waiter> = []
  private head = 0
  private live = 0
  /** CoDel: when the queue, above target since, will have stood a whole interval (0: not above target) */
  private aboveUntil = 0
  private shedding = false
  private admittedCount = 0
  private shedCount = 0
  /** when a slot was last released while every slot was taken, and the mean time between such releases (ms) */
  private lastBusyRelease = 0
  private gap = 0
  /** the mean time between busy releases over the last windows of `paceWindow` busy ms (0: none yet) */
  private pace = 0
  private busyTime = 0
  private busyReleases = 0

  constructor(readonly options: AdmissionOptions) {}

  /** A request arriving at `now`: run it, shed it, or queue it (`resume` is called once its turn comes). */
  arrive(now: number, resume: (outcome: Outcome) => void): Arrival {
    const slots = this.slots()
    if (this.live === 0 && this.inFlight < slots) {
      this.inFlight++
      this.admittedCount++
      return run
    }
    const refused = this.refusal(now, slots)
    if (refused !== undefined) {
      this.shedCount++
      return refused
    }
    const waiter: Waiter = { at: now, kept: this.live < slots, resume, gone: false }
    this.waiters.push(waiter)
    this.live++
    return {
      _tag: "Queued",
      cancel: () => {
        if (waiter.gone) return
        waiter.gone = true
        this.live--
      }
    }
  }

  /** A running request finished at `now`: its slot goes to the next waiter still in time, if any. */
  release(now: number): void {
    // releases while every slot is taken pace the queue: their mean interval is what one place in the queue costs
    if (this.inFlight >= this.slots()) {
      if (this.lastBusyRelease > 0) {
        const gap = Math.max(0, now - this.lastBusyRelease)
        this.gap = this.gap === 0 ? gap : this.gap * 0.9 + gap * 0.1
        // releases come in bursts (a group commit answers tens at once): the pace is taken over windows of busy time
        this.busyTime += gap
        this.busyReleases++
        if (this.busyTime >= paceWindow) {
          const sample = this.busyTime / this.busyReleases
          this.pace = this.pace === 0 ? sample : this.pace * 0.5 + sample * 0.5
          this.busyTime = 0
          this.busyReleases = 0
        }
      }
      this.lastBusyRelease = now
    } else {
      this.lastBusyRelease = 0
    }
    this.inFlight--
    const slots = this.slots()
    while (this.live > 0 && this.inFlight < slots) {
      const waiter = this.take()!
      const waited = now - waiter.at
      this.observe(now, waited)
      if (waited > this.options.maxWait && !waiter.kept) {
        this.shedCount++
        waiter.resume("shed")
        continue
      }
      this.inFlight++
      this.admittedCount++
      waiter.resume("run")
    }
    if (this.live === 0) this.calm()
  }

  stats() {
    return {
      slots: this.slots(),
      inFlight: this.inFlight,
      queued: this.live,
      shedding: this.shedding,
      admitted: this.admittedCount,
      shed: this.shedCount
    }
  }

  /** The slots now: the pace's share of half the latency target, within the bounds (see `minConcurrency`). */
  private slots(): number {
    const { concurrency, maxWait, minConcurrency = concurrency } = this.options
    if (minConcurrency >= concurrency) return concurrency
    // no pace yet: the minimum, as a slow start (the maximum at once on a cold, overloaded server: the slowest of all)
    if (this.pace <= 0) return minConcurrency
    return Math.max(minConcurrency, Math.min(concurrency, Math.floor(maxWait / 2 / this.pace)))
  }

  /** Why an arrival at `now` that cannot run at once is shed at once, if it is. */
  private refusal(now: number, slots: number): Arrival | undefined {
    // the head's wait so far counts as a sojourn too: a stalled resource releases nothing, yet its queue stands
    if (this.live > 0) this.observe(now, now - this.oldest()!.at)
    if (this.live < slots) return undefined
    if (this.shedding) return standing
    // its latency: its wait for a slot (a release for each waiter ahead, and its own), then the service of the
    // requests in flight with it (Little: `inFlight` releases' worth); on one database every request in flight
    // queues for the same connection, so counting only the queue promised latencies `concurrency` times too low
    const pace = this.pace > 0 ? this.pace : this.gap
    if (pace > 0 && (this.live + 1 + this.inFlight) * pace > this.options.maxWait) return predicted
    if (this.live >= this.options.maxQueue) return full
    return undefined
  }

  /** CoDel's state change for one request that waited `waited` ms, seen at `now`. */
  private observe(now: number, waited: number) {
    if (waited < this.options.target) return this.calm()
    if (this.aboveUntil === 0) this.aboveUntil = now + this.options.interval
    else if (now >= this.aboveUntil) this.shedding = true
  }

  private calm() {
    this.aboveUntil = 0
    this.shedding = false
  }

  private oldest(): Waiter | undefined {
    while (this.head < this.waiters.length && this.waiters[this.head]!.gone) this.head++
    return this.waiters[this.head]
  }

  private take(): Waiter | undefined {
    const waiter = this.oldest()
    if (waiter === undefined) return undefined
    waiter.gone = true
    this.live--
    this.head++
    // drop the taken prefix now and then, so the array does not grow with every request ever queued
    if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head)
      this.head = 0
    }
    return waiter
  }
}
