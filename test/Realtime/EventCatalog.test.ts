import { HttpServer } from "@effect/platform"
import { NodeSocket } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { EventStream } from "@shoal/client"
import { EventCatalog } from "@shoal/domain"
import { Chunk, Effect, Fiber, Option, Stream } from "effect"
import type { Outbox } from "../../src/Realtime/Outbox.js"
import { rawRequest } from "../support/Raw.js"
import { emit, emitEvent, openSocket, RealtimeApp } from "../support/Realtime.js"
import { signUp } from "../support/TestApp.js"

// compiled by `npm run typecheck`, never run: the outbox refuses what is not in the catalog
export const refusedByTheCompiler = (outbox: Outbox) => [
  // @ts-expect-error a misspelled type
  outbox.emit(["u"], "message.recieved", { message_id: "m", sender_handle: "a", content: "c" }),
  // @ts-expect-error a missing field
  outbox.emit(["u"], "message.received", { sender_handle: "a", content: "c" }),
  // @ts-expect-error a misspelled field
  outbox.emit(["u"], "message.received", { message_id: "m", sender_handle: "a", contents: "c" }),
  // @ts-expect-error a field of the wrong type
  outbox.emit(["u"], "gems.earned", { amount: "5", source: "task_completion", task_id: null }),
  // @ts-expect-error a field another event has
  outbox.emit(["u"], "follower.new", { follower_handle: "a", content: "c" }),
  // @ts-expect-error a state the event does not have
  outbox.emit(["u"], "wave.phase", { wave_id: "w", state: "DONE", next_state_start: null }),
  // @ts-expect-error emitMany: the data of presence.changed under follower.new
  outbox.emitMany([{ recipients: ["u"], type: "follower.new", data: { handle: "a", state: "offline" } }])
]

const app = RealtimeApp()

layer(app, { excludeTestServices: true })("event catalog", (it) => {
  it.scoped("an emitted event reaches the socket client as its typed member; unknown types are skipped", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const server = yield* HttpServer.HttpServer
      const port = (server.address as HttpServer.TcpAddress).port
      // a human without agents: its stream holds only these events; both readers start at its first one
      const raw = yield* openSocket({ key: human.api_key, query: "?after=0" })
      const collected = yield* EventStream.make({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: human.api_key,
        after: 0
      }).pipe(
        Stream.take(2),
        Stream.runCollect,
        Effect.provide(NodeSocket.layerWebSocketConstructor),
        Effect.fork
      )
      // a type from a "newer server" first: the client passes over it and keeps going
      yield* emit([human.user.id], "test.from-the-future", { anything: true })
      yield* emitEvent([human.user.id], "task.assigned", {
        id: "t1",
        title: "Write docs",
        project_id: "p1",
        project_name: "Docs",
        permalink: "http://localhost:8080/projects/p1/tasks/t1",
        assigned_by_id: "u1",
        assigned_by_handle: "alice"
      })
      yield* emitEvent([human.user.id], "gems.earned", { amount: 12, source: "task_completion", task_id: "t1" })
      const frames = Chunk.toReadonlyArray(yield* Fiber.join(collected).pipe(Effect.timeout("15 seconds")))
      expect(frames.map((f) => f.event.type)).toEqual(["task.assigned", "gems.earned"])
      const [assigned, earned] = frames
      // narrowing on `type` gives the member's data, typed
      if (assigned!.event.type !== "task.assigned") throw new Error("expected task.assigned")
      expect(assigned!.event.data.project_name).toBe("Docs")
      if (earned!.event.type !== "gems.earned") throw new Error("expected gems.earned")
      const amount: number = earned!.event.data.amount
      expect(amount).toBe(12)
      expect(earned!.event.id).toMatch(/^evt_[0-9a-f]{32}$/)

      // the raw socket saw all three, the unknown one included, with the same cursors
      const seen = yield* raw.waitEvents("", 3)
      expect(seen.map((f) => f.event!.type)).toEqual(["test.from-the-future", "task.assigned", "gems.earned"])
      expect(seen.slice(1).map((f) => f.cursor)).toEqual(frames.map((f) => f.cursor))
    }))

  it.effect("polling: the typed client reads catalog events and unknown types alike, and they decode", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      yield* emitEvent([human.user.id], "wave.phase", {
        wave_id: "w1",
        state: "FLOW",
        next_state_start: "2026-01-01T10:45:00.000Z"
      })
      yield* emit([human.user.id], "test.from-the-future", { n: 1 })
      const page = yield* human.client.events.poll({ urlParams: {} })
      expect(page.events.map((e) => e.type)).toEqual(["wave.phase", "test.from-the-future"])
      const [phase, future] = page.events
      const decoded = EventCatalog.decodeEvent(phase)
      expect(Option.isSome(decoded)).toBe(true)
      const event = Option.getOrThrow(decoded)
      if (event.type !== "wave.phase") throw new Error("expected wave.phase")
      expect(event.data.state).toBe("FLOW")
      expect(event.data.next_state_start).toBe("2026-01-01T10:45:00.000Z")
      expect(future!.data).toEqual({ n: 1 })
      expect(Option.isNone(EventCatalog.decodeEvent(future))).toBe(true)
    }))

  it.effect("/openapi.json lists every catalog event as a webhook with its envelope and headers", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("GET", "/openapi.json")
      expect(res.status).toBe(200)
      const doc = res.body
      expect(doc.openapi).toMatch(/^3\.1\./)
      expect(Object.keys(doc.webhooks).sort()).toEqual([...EventCatalog.eventTypes].sort())
      const resolve = (ref: string) => doc.components.schemas[ref.replace("#/components/schemas/", "")]
      for (const type of EventCatalog.eventTypes) {
        const post = doc.webhooks[type].post
        expect(post.parameters.map((p: any) => p.name)).toEqual([
          "X-Service-Event",
          "webhook-id",
          "webhook-timestamp",
          "webhook-signature"
        ])
        expect(post.parameters[0].schema.const).toBe(type)
        const envelope = resolve(post.requestBody.content["application/json"].schema.$ref)
        expect(envelope.required).toEqual(["id", "type", "created_at", "data"])
        expect(envelope.properties.type.enum).toEqual([type])
        expect(resolve(envelope.properties.data.$ref).type).toBe("object")
      }
      expect(
        resolve(doc.webhooks["task.assigned"].post.requestBody.content["application/json"].schema.$ref)
          .properties.data.$ref
      ).toBe("#/components/schemas/TaskAssignedData")
      expect(Object.keys(doc.components.schemas.TaskAssignedData.properties)).toEqual(
        expect.arrayContaining(["id", "title", "project_name"])
      )
      // the poll's events are the same members plus one for types added later
      expect(doc.components.schemas.PolledEvent.anyOf).toHaveLength(EventCatalog.eventTypes.length + 1)
      // no `$id` in what the catalog added
      const added = Object.entries(doc.components.schemas)
        .filter(([name]) => /(Event|Data)$/.test(name))
      expect(added.length).toBeGreaterThanOrEqual(2 * EventCatalog.eventTypes.length)
      expect(JSON.stringify(added)).not.toContain("$id")
      expect(JSON.stringify(doc.components.schemas.PolledEvent)).not.toContain("$id")
    }))
})
