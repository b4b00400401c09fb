import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { openSocket, realSleep, RealtimeApp } from "../support/Realtime.js"
import { createAgent, signUp } from "../support/TestApp.js"

// WS_AUTH_TIMEOUT is the client's deadline for its auth frame; the server's check of the key that frame carries is
// made slow here, as a database slow to answer would make it: the keys table is locked for a while, so the lookup of
// a key this node has not read yet waits for it. It returns once the lock is held: under load the LOCK could
// otherwise come after the key check it was meant to slow (CI, the PostgreSQL pass, once)
const holdKeys = (ms: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* Deferred.make<void>()
    yield* Effect.forkScoped(sql.withTransaction(
      sql`LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE`.pipe(
        Effect.zipRight(Deferred.succeed(locked, undefined)),
        Effect.zipRight(realSleep(ms))
      )
    ))
    yield* Deferred.await(locked)
  })

layer(
  RealtimeApp({ WS_AUTH_TIMEOUT: "1 second" }),
  { excludeTestServices: true, timeout: 30_000 }
)("the event socket's auth deadline", (it) => {
  it.scoped("an auth frame sent in time is not refused while the server is still checking its key", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      // the frame at 0.5 s, within the deadline; its check ends at about 1.2 s, past it
      const socket = yield* openSocket({})
      yield* realSleep(500)
      yield* holdKeys(700)
      yield* realSleep(20)
      socket.send({ type: "auth", api_key: agent.api_key })
      const ready = yield* socket.ready()
      expect(ready.type).toBe("ready")
      expect(socket.closed).toBeUndefined()
    }))

  it.scoped("a socket that sends no auth frame is still closed 4401 at the deadline", () =>
    Effect.gen(function*() {
      const socket = yield* openSocket({})
      const closed = yield* socket.waitClosed(5_000)
      expect(closed.code).toBe(4401)
    }))
})

layer(
  RealtimeApp({ WS_AUTH_TIMEOUT: "500 millis" }),
  { excludeTestServices: true, timeout: 30_000 }
)("the event socket's key check deadline", (it) => {
  it.scoped("a check that outlasts its own deadline closes 1013 (try again later), not 4401 (a bad key)", () =>
    Effect.gen(function*() {
      const human = yield* signUp()
      const agent = yield* createAgent(human.api_key)
      yield* holdKeys(2_000)
      yield* realSleep(20)
      const socket = yield* openSocket({ key: agent.api_key, via: "frame" })
      const closed = yield* socket.waitClosed(5_000)
      expect(closed.code).toBe(1013)
      // the check's late answer does not bring the closed socket back
      yield* realSleep(2_000)
      expect(socket.frames.filter((m) => m.type === "ready")).toEqual([])
    }))
})
