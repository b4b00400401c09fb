import { expect } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { isGatedWrite, WriteAdmission } from "../../src/Edge/WriteAdmission.js"
import { post } from "../Social/support.js"
import { expectError, rawRequest, type RawResponse } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"

const WRITES = 150

// One write at a time and a queue judged standing after 5 ms above 1 ms: offered a comment every 2 ms, which the
// write path cannot keep up with, the server must shed. Each comment carries its own Idempotency-Key, so a shed one
// can be retried as it is and is seen to be new (not a replay): nothing of it was stored.
const oneWriteAtATime = {
  RATE_LIMIT_PER_MINUTE: "1000000",
  WRITE_CONCURRENCY: "1",
  WRITE_QUEUE_TARGET: "1 millis",
  WRITE_QUEUE_INTERVAL: "5 millis",
  WRITE_LATENCY_TARGET: "30 seconds"
}

describeApp(oneWriteAtATime)("overload: writes past what the write path absorbs are shed at once", (it) => {
  it.effect(
    "503 unavailable with Retry-After: 1 and details.reason overloaded; nothing applied; retry applies once",
    () =>
      Effect.gen(function*() {
        const alice = yield* signUp()
        const p = yield* post(alice, "the post")
        const comment = (i: number) =>
          rawRequest("POST", "/api/agent/comment", {
            key: alice.api_key,
            body: JSON.stringify({ post_id: p.id, content: `c${i}` }),
            headers: { "idempotency-key": `overload-${i}` }
          })
        // open loop: a request every 2 ms whatever the answers, every tenth of them a heartbeat
        const fibers: Array<Fiber.RuntimeFiber<RawResponse, unknown>> = []
        const beats: Array<Fiber.RuntimeFiber<RawResponse, unknown>> = []
        for (let i = 0; i < WRITES; i++) {
          fibers.push(yield* Effect.fork(comment(i)))
          if (i % 10 === 0) {
            beats.push(yield* Effect.fork(rawRequest("POST", "/api/agent/heartbeat", { key: alice.api_key })))
          }
          yield* Effect.sleep(Duration.millis(2))
        }
        const answers = yield* Effect.forEach(fibers, Fiber.join)
        const shed = answers.flatMap((r, i) => (r.status === 503 ? [i] : []))
        const applied = answers.filter((r) => r.status === 201).length
        expect(applied + shed.length, answers.map((r) => r.status).join(",")).toBe(WRITES)
        expect(shed.length).toBeGreaterThan(0)
        expect(applied).toBeGreaterThan(0)
        for (const i of shed) {
          const error = expectError(answers[i]!, 503, "unavailable")
          expect(error.details).toEqual({ reason: "overloaded" })
          expect(answers[i]!.headers["retry-after"]).toBe("1")
          expect(answers[i]!.headers["content-type"]).toContain("application/json")
        }
        // the heartbeat is not a write the queue holds: never shed
        for (const beat of yield* Effect.forEach(beats, Fiber.join)) expect(beat.status).toBe(200)

        // only the admitted comments are there
        const got = yield* alice.client.social.getPost({ path: { post_id: p.id } })
        expect(got.post.comment_count).toBe(applied)
        // a shed request retried with its key is applied then, as a first answer, not a replay
        for (const i of shed) {
          const again = yield* comment(i)
          expect(again.status).toBe(201)
          expect(again.headers["idempotent-replayed"]).toBeUndefined()
        }
        // an admitted one retried is replayed, not applied twice
        const admitted = answers.findIndex((r) => r.status === 201)
        expect((yield* comment(admitted)).headers["idempotent-replayed"]).toBe("true")
        const after = yield* alice.client.social.getPost({ path: { post_id: p.id } })
        expect(after.post.comment_count).toBe(WRITES)
      }),
    { timeout: 120_000 }
  )

  it("which requests are gated: writes; not reads, preflights or the heartbeat", () => {
    for (const m of ["POST", "PUT", "PATCH", "DELETE"]) expect(isGatedWrite(m, "/api/agent/posts")).toBe(true)
    for (const m of ["GET", "HEAD", "OPTIONS"]) expect(isGatedWrite(m, "/api/agent/posts")).toBe(false)
    expect(isGatedWrite("POST", "/api/agent/heartbeat")).toBe(false)
    expect(isGatedWrite("POST", "/api/agent/heartbeat?x=1")).toBe(false)
    expect(isGatedWrite("POST", "/api/gems/transfer")).toBe(true)
  })
})

// A write the queue sheds at once gets the contract's 503 with Retry-After, and stores nothing; the writes queued
// before it are applied once a slot is free.
describeApp(oneWriteAtATime)("overload: a write shed at once", (it) => {
  it.effect(
    "answered 503 unavailable; the writes queued before it are applied",
    () =>
      Effect.gen(function*() {
        const queue = (yield* WriteAdmission).queue!
        const alice = yield* signUp()
        const p = yield* post(alice, "the post")
        const comment = (i: number) =>
          rawRequest("POST", "/api/agent/comment", {
            key: alice.api_key,
            body: JSON.stringify({ post_id: p.id, content: `c${i}` })
          })
        const pause = (ms: number) => Effect.sleep(Duration.millis(ms))
        const queued = (n: number) =>
          Effect.gen(function*() {
            while (queue.stats().queued < n) yield* pause(5)
          })
        // the one slot held here: two comments wait, the head longer than the target for longer than the interval
        expect(queue.arrive(Date.now(), () => {})._tag).toBe("Run")
        const first = yield* Effect.fork(comment(0))
        yield* queued(1)
        yield* pause(20)
        const second = yield* Effect.fork(comment(1))
        yield* queued(2)
        yield* pause(20)
        const shed = yield* comment(2)
        expect(expectError(shed, 503, "unavailable").details).toEqual({ reason: "overloaded" })
        expect(shed.headers["retry-after"]).toBe("1")
        // the queued writes run once the slot is given back; the shed ones stored nothing
        queue.release(Date.now())
        expect((yield* Fiber.join(first)).status).toBe(201)
        expect((yield* Fiber.join(second)).status).toBe(201)
        const got = yield* alice.client.social.getPost({ path: { post_id: p.id } })
        expect(got.post.comment_count).toBe(2)
      }),
    { timeout: 60_000 }
  )
})
