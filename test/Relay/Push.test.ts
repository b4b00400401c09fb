import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { rawRequest } from "../support/Raw.js"
import { waitFor, waitForEffect } from "../support/Realtime.js"
import { describeApp } from "../support/TestApp.js"
import { agentWithRelay, pending, sendTheThree } from "./support.js"

interface Received {
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** A receiver that records each push and answers `answer(nth)` for the nth push of an event id. */
const receiver = (answer: (nth: number) => number = () => 200) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const got: Array<Received> = []
      const seen = new Map<string, number>()
      const server = Http.createServer((req, res) => {
        let body = ""
        req.on("data", (c) => (body += c))
        req.on("end", () => {
          got.push({ headers: req.headers, body })
          const id = JSON.parse(body).id as string
          const nth = (seen.get(id) ?? 0) + 1
          seen.set(id, nth)
          res.writeHead(answer(nth)).end()
        })
      })
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/openclaw`, got, server }
    }),
    (r) => Effect.promise(() => new Promise<void>((done) => r.server.close(() => done())))
  )

const configurePush = (relayId: string, relayKey: string, url: string, secret?: string) =>
  rawRequest("POST", `/api/v1/agent/${relayId}/configure`, {
    key: relayKey,
    body: JSON.stringify({ delivery_mode: "push", webhook_url: url, ...(secret ? { webhook_secret: secret } : {}) })
  })

// receivers listen on loopback, which the guard refuses unless WEBHOOK_ALLOW_PRIVATE (this also runs the worker)
describeApp({ WEBHOOK_ALLOW_PRIVATE: "true" })("relay push delivery", (it) => {
  it.scoped("a push relay gets the feed POSTed in the relay envelope, signed; delivered events leave the feed", () =>
    Effect.gen(function*() {
      const hook = yield* receiver()
      const { agent, human, relayId, relayKey } = yield* agentWithRelay
      expect((yield* configurePush(relayId, relayKey, hook.url, "s3cret")).status).toBe(200)
      const sent = yield* sendTheThree(human, agent.agent.handle)
      const types = () => hook.got.map((r) => JSON.parse(r.body).payload.type)
      yield* waitFor(
        "three pushes",
        () => ["dm.received", "task.assigned", "mention"].every((t) => types().includes(t)) ? true : undefined
      )
      for (const r of hook.got) {
        const timestamp = r.headers["x-powerlobster-timestamp"] as string
        expect(Math.abs(Number(timestamp) - Date.now())).toBeLessThan(60_000)
        const expected = createHmac("sha256", "s3cret").update(`${timestamp}.${r.body}`).digest("hex")
        expect(r.headers["x-powerlobster-signature"]).toBe(`v1=${expected}`)
        const body = JSON.parse(r.body)
        expect(body.id).toBe(body.payload.id)
        expect(body.payload._meta.delivery_method).toBe("push")
      }
      const task = hook.got.map((r) => JSON.parse(r.body)).find((b) => b.payload.type === "task.assigned")
      expect(task.payload.data.task).toEqual({
        id: sent.task.id,
        title: "Fix the build",
        description: "the CI job fails on npm ci"
      })
      // in order, each once, and the position moved past them
      const cursors = hook.got.map((r) => JSON.parse(r.body).payload._meta.cursor)
      expect([...cursors].sort((a, b) => a - b)).toEqual(cursors)
      expect(new Set(cursors).size).toBe(cursors.length)
      // the receiver answered before the position was written: look until it is
      yield* waitForEffect(
        "the position past the pushed events",
        Effect.map(pending(relayId, relayKey), (r) => r.body.events.length === 0 ? true : undefined)
      )
    }))

  it.scoped("a failed push is retried, in order, and without a secret goes unsigned", () =>
    Effect.gen(function*() {
      const hook = yield* receiver((nth) => nth === 1 ? 503 : 200)
      const { agent, human, relayId, relayKey } = yield* agentWithRelay
      expect((yield* configurePush(relayId, relayKey, hook.url)).status).toBe(200)
      yield* human.client.social.follow({ payload: { handle: agent.agent.handle }, headers: {} })
      yield* human.client.messages.sendMessage({
        payload: { recipient_handle: agent.agent.handle, content: "first" },
        headers: {}
      })
      yield* human.client.messages.sendMessage({
        payload: { recipient_handle: agent.agent.handle, content: "second" },
        headers: {}
      })
      // the first delivery of each event is refused; the retry comes after 5 s
      const dms = () =>
        hook.got.map((r) => JSON.parse(r.body)).filter((b) => b.payload.type === "dm.received").map((b) =>
          b.payload.data.content
        )
      yield* waitFor("both DMs delivered", () => {
        const d = dms()
        return d.filter((c) => c === "second").length === 2 ? d : undefined
      }, 30_000)
      // the refused event came again before anything after it
      expect(dms()).toEqual(["first", "first", "second", "second"])
      expect(hook.got.every((r) => r.headers["x-powerlobster-signature"] === undefined)).toBe(true)
    }))
})
