import { describe, expect, it } from "@effect/vitest"
import { type AdmissionOptions, AdmissionQueue, type Outcome } from "../../src/Edge/AdmissionQueue.js"

// The policy is a state machine over times passed in (ms), so these tests drive it with explicit times: no clock,
// no timers, the same answer every run.
const options: AdmissionOptions = { concurrency: 2, target: 50, interval: 200, maxWait: 1_000, maxQueue: 100 }

const setup = (o: Partial<AdmissionOptions> = {}) => {
  const queue = new AdmissionQueue({ ...options, ...o })
  const outcomes: Array<Outcome | "pending"> = []
  const arrive = (now: number) => {
    const i = outcomes.push("pending") - 1
    const arrival = queue.arrive(now, (outcome) => (outcomes[i] = outcome))
    if (arrival._tag !== "Queued") outcomes[i] = arrival._tag === "Run" ? "run" : "shed"
    return arrival
  }
  return { queue, outcomes, arrive }
}

describe("AdmissionQueue", () => {
  it("runs up to the concurrency at once and queues the rest in arrival order", () => {
    const { arrive, outcomes, queue } = setup()
    for (let i = 0; i < 5; i++) arrive(0)
    expect(outcomes).toEqual(["run", "run", "pending", "pending", "pending"])
    queue.release(10)
    expect(outcomes).toEqual(["run", "run", "run", "pending", "pending"])
    queue.release(20)
    queue.release(30)
    expect(outcomes).toEqual(["run", "run", "run", "run", "run"])
    expect(queue.stats()).toMatchObject({ inFlight: 2, queued: 0, shedding: false, admitted: 5, shed: 0 })
  })

  it("a burst is queued whole, however long it takes to drain: only arrivals into a standing queue are shed", () => {
    const { arrive, outcomes, queue } = setup()
    // 60 at once, drained one per 10 ms: the last waits ~600 ms, far past the target, and is still run
    for (let i = 0; i < 60; i++) arrive(0)
    let now = 0
    for (let i = 0; i < 60; i++) queue.release(now += 10)
    expect(outcomes.every((o) => o === "run")).toBe(true)
    expect(queue.stats().shed).toBe(0)
  })

  it("sheds arrivals at once after the queue stood above the target for a whole interval, and stops when it drains", () => {
    const { arrive, outcomes, queue } = setup()
    // offered a request every 5 ms, served one every 10 ms: the queue grows
    let now = 0
    let firstShed: number | undefined
    const releases: Array<number> = []
    for (; now <= 1_000; now += 5) {
      if (now > 0 && now % 10 === 0 && queue.stats().inFlight > 0) {
        queue.release(now)
        releases.push(now)
      }
      if (arrive(now)._tag === "Shed" && firstShed === undefined) firstShed = now
    }
    // sojourns pass 50 ms ~100 ms in; the queue must stand a further 200 ms before the first shed
    expect(firstShed).toBeGreaterThanOrEqual(300)
    expect(firstShed).toBeLessThan(450)
    const shed = outcomes.filter((o) => o === "shed").length
    // about half the offered load is turned away, and nothing waits past maxWait
    expect(shed).toBeGreaterThan(50)
    expect(queue.stats().queued).toBeLessThan(60)
    // once offered less than it serves, the queue drains and arrivals are queued again
    for (let i = 0; i < 200 && queue.stats().queued > 0; i++) queue.release(now += 10), arrive(now)
    now += 10
    queue.release(now)
    expect(queue.stats().shedding).toBe(false)
    expect(arrive(now)._tag).not.toBe("Shed")
  })

  it("a closed loop of up to twice the concurrency is never shed, however slow the resource", () => {
    const { arrive, outcomes, queue } = setup()
    // 4 clients, each sending again once answered; one answer per 500 ms: every request waits ~1 s
    let now = 0
    for (let i = 0; i < 4; i++) arrive(now)
    for (let round = 0; round < 40; round++) {
      now += 500
      queue.release(now)
      arrive(now)
    }
    expect(outcomes.filter((o) => o === "shed")).toEqual([])
  })

  it("during the first interval of an overload, an arrival the queue would hold past maxWait is shed at once", () => {
    const { arrive, queue } = setup({ interval: 60_000, maxWait: 100 })
    // slots busy, one released every 10 ms: a place in the queue costs ~10 ms, so ~10 places fit in 100 ms
    let now = 0
    const arrivals: Array<string> = []
    for (let i = 0; i < 40; i++) arrivals.push(arrive(now)._tag)
    for (let i = 0; i < 5; i++) queue.release(now += 10)
    arrivals.length = 0
    for (let i = 0; i < 20; i++) {
      const a = arrive(now)
      arrivals.push(a._tag === "Shed" ? a.reason : a._tag)
    }
    expect(arrivals).toEqual(Array.from({ length: 20 }, () => "predicted"))
    expect(queue.stats().shedding).toBe(false)
  })

  it("a stalled resource (nothing released) is detected from the head's wait alone", () => {
    const { arrive } = setup()
    arrive(0), arrive(0), arrive(0)
    expect(arrive(60)._tag).toBe("Queued") // head waited 60 ms: above the target, the interval starts
    expect(arrive(200)._tag).toBe("Queued")
    expect(arrive(261)).toEqual({ _tag: "Shed", reason: "standing" })
  })

  it("a request that waited past maxWait is shed when its turn comes, without taking the slot", () => {
    const { arrive, outcomes, queue } = setup({ maxWait: 100, target: 10_000 })
    // two running, two kept (fewer than the concurrency ahead of them), then two that may be shed
    arrive(0), arrive(0), arrive(0), arrive(0), arrive(0), arrive(90)
    queue.release(150)
    queue.release(150)
    expect(outcomes).toEqual(["run", "run", "run", "run", "pending", "pending"])
    queue.release(160)
    // the one from t=0 waited 160 ms: shed; the one from t=90 waited 70 ms: run in its place
    expect(outcomes).toEqual(["run", "run", "run", "run", "shed", "run"])
    expect(queue.stats()).toMatchObject({ inFlight: 2, queued: 0 })
  })

  it("sheds beyond maxQueue, and a cancelled waiter gives its place up", () => {
    const { arrive, outcomes, queue } = setup({ maxQueue: 2 })
    arrive(0), arrive(0)
    const third = arrive(0)
    arrive(0)
    expect(arrive(0)).toEqual({ _tag: "Shed", reason: "full" })
    if (third._tag !== "Queued") throw new Error("queued expected")
    third.cancel()
    third.cancel() // twice is once
    expect(queue.stats().queued).toBe(1)
    queue.release(5)
    expect(outcomes).toEqual(["run", "run", "pending", "run", "shed"])
    expect(queue.stats()).toMatchObject({ inFlight: 2, queued: 0 })
  })

  it("between the bounds, the slots follow the pace: as many as drain in half of maxWait", () => {
    const { arrive, outcomes, queue } = setup({ concurrency: 64, minConcurrency: 4, maxWait: 1_000, target: 10_000 })
    let now = 0
    // no pace yet: the minimum
    for (let i = 0; i < 100; i++) arrive(now)
    expect(queue.stats()).toMatchObject({ slots: 4, inFlight: 4, queued: 96 })
    // every slot busy, one released per 2 ms: 250 would fit in 500 ms, so up to the maximum once 100 busy ms passed
    for (let i = 0; i < 60; i++) queue.release(now += 2), arrive(now)
    expect(queue.stats()).toMatchObject({ slots: 64, inFlight: 64 })
    // one released per 50 ms: 10 fit in 500 ms; no waiter runs until fewer than 10 are in flight
    for (let i = 0; i < 20; i++) queue.release(now += 50)
    expect(queue.stats().slots).toBe(10)
    const inFlight = queue.stats().inFlight
    for (let i = 0; i < inFlight - 10; i++) queue.release(now += 50)
    expect(queue.stats()).toMatchObject({ slots: 10, inFlight: 10 })
    // the first hundred were queued in the first millisecond, before anything had waited: none is shed
    expect(outcomes.slice(0, 100).includes("shed")).toBe(false)
    // a slower pace: down to the minimum, never below
    for (let i = 0; i < 10; i++) queue.release(now += 1_000), arrive(now)
    expect(queue.stats().slots).toBe(4)
    // a fast pace again, offered more than it serves: the pace halves its distance to each 100 busy ms' mean, so
    // back up to the maximum within about a second
    for (let i = 0; i < 1_000; i++) queue.release(now += 1), arrive(now), arrive(now)
    expect(queue.stats().slots).toBe(64)
  })

  it("a release burst (a group commit answering many at once) does not swing the slots", () => {
    const { arrive, queue } = setup({ concurrency: 64, minConcurrency: 4, maxWait: 1_000, target: 10_000 })
    let now = 0
    for (let i = 0; i < 200; i++) arrive(now)
    // 20 answered together every 40 ms: 2 ms per write on average, 250 fit in 500 ms: the maximum throughout
    const seen = new Set<number>()
    for (let batch = 0; batch < 30; batch++) {
      now += 40
      for (let i = 0; i < 20; i++) queue.release(now), arrive(now)
      // (the first ones at the minimum: no pace yet)
      if (batch >= 5) seen.add(queue.stats().slots)
    }
    expect([...seen]).toEqual([64])
  })
})
