import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import WebSocket from "ws"
import { realSleep, RealtimeApp, TestSocket, waitFor, wsUrl } from "../support/Realtime.js"
import { createAgent, signUp } from "../support/TestApp.js"

const CAP = 3

/** A socket without a key in its header, from `address`, on the front door's path or (with a query) the router's. */
const keyless = (address: string, query?: string) =>
  Effect.acquireRelease(
    Effect.map(wsUrl(query), (url) => new TestSocket(new WebSocket(url, { localAddress: address }))),
    (s) => Effect.sync(() => s.ws.terminate())
  )

const settled = (s: TestSocket) => waitFor("the upgrade to be answered", () => s.opened || s.rejected || undefined)

layer(RealtimeApp({ WS_PENDING_AUTH_PER_IP: String(CAP) }), { excludeTestServices: true, timeout: 30_000 })(
  "sockets waiting for their auth frame, per address",
  (it) => {
    for (const [path, query] of [["the front door", undefined], ["the router (?after=)", "?after=0"]] as const) {
      it.scoped(`past the cap an address's next keyless upgrade is refused 429 (${path}); others are served`, () =>
        Effect.gen(function*() {
          const human = yield* signUp()
          const agent = yield* createAgent(human.api_key)
          const from = query === undefined ? "127.0.0.6" : "127.0.0.7"
          const waiting = []
          for (let i = 0; i < CAP; i++) {
            const s = yield* keyless(from, query)
            yield* settled(s)
            expect(s.opened).toBe(true)
            waiting.push(s)
          }
          const refused = yield* keyless(from, query)
          yield* settled(refused)
          expect(refused.rejected?.status).toBe(429)
          expect(refused.rejected?.headers["retry-after"]).toBe("10")
          expect(refused.rejected?.body.error.code).toBe("rate_limited")
          // another address is not affected
          const other = yield* keyless("127.0.0.8", query)
          yield* settled(other)
          expect(other.opened).toBe(true)
          // one of the waiting authenticates: its place is free again
          waiting[0]!.send({ type: "auth", api_key: agent.api_key })
          yield* waiting[0]!.ready()
          yield* realSleep(50)
          const again = yield* keyless(from, query)
          yield* settled(again)
          expect(again.opened).toBe(true)
          // and a closed one frees its place too
          yield* waiting[1]!.close()
          yield* realSleep(50)
          const more = yield* keyless(from, query)
          yield* settled(more)
          expect(more.opened).toBe(true)
        }))
    }
  }
)
