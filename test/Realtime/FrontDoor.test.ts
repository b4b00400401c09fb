import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as FrontDoor from "../../src/Http/FrontDoor.js"
import { openSocket, RealtimeApp } from "../support/Realtime.js"
import { signUp } from "../support/TestApp.js"

// The event socket's front door (src/Realtime/WebSocket.ts, EventSocketFrontLane) upgrades the plain case on Node's
// socket before Effect's HTTP server sees the request. The lane is wrapped to count what it upgraded itself, so each
// case says which path took it; what it hands on must get the general path's answers.
const PATH = "/api/agent/ws"

const countUpgrades = Effect.map(FrontDoor.FrontDoor, (door) => {
  const lane = door.upgrades.get(PATH)
  if (lane === undefined) throw new Error(`no front-door upgrade lane for ${PATH}`)
  const counted = { upgraded: 0, handedOn: 0 }
  door.upgrades.set(PATH, {
    ...lane,
    answer: (req, socket, head, next) => {
      let handedOn = false
      const taken = lane.answer(req, socket, head, () => {
        handedOn = true
        counted.handedOn++
        next()
      })
      // the lookup calls back later: count an upgrade once the socket is the lane's for good
      if (taken) socket.once("close", () => void (!handedOn && counted.upgraded++))
      return taken
    }
  })
  return counted
})

const app = RealtimeApp({ WS_AUTH_TIMEOUT: "2 seconds", RATE_LIMIT_PER_MINUTE: "4" })

layer(app, { excludeTestServices: true })("the event socket's front door", (it) => {
  it.scoped("upgrades a known header key itself; hands the rest on unchanged and uncounted", () =>
    Effect.gen(function*() {
      const counted = yield* countUpgrades
      const human = yield* signUp()

      // the plain case: the door's own upgrade, then `ready` as the general path sends it
      const viaBearer = yield* openSocket({ key: human.api_key })
      const ready = yield* viaBearer.ready()
      expect(typeof ready.cursor).toBe("number")
      const viaHeader = yield* openSocket({ key: human.api_key, via: "x-api-key" })
      yield* viaHeader.ready()
      viaBearer.ws.terminate()
      viaHeader.ws.terminate()
      yield* viaBearer.waitClosed()
      yield* viaHeader.waitClosed()
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
      expect(counted).toEqual({ upgraded: 2, handedOn: 0 })

      // an unknown key: handed on, and the general path's JSON 401
      const bad = yield* openSocket({ key: "sk_nope" })
      yield* bad.waitClosed()
      expect(bad.rejected?.status).toBe(401)
      expect(bad.rejected?.body.error.code).toBe("unauthorized")
      expect(counted.handedOn).toBe(1)

      // no key (an auth frame follows): the door upgrades it at once to wait for its frame; a resume is not the
      // door's at all
      const framed = yield* openSocket({ key: human.api_key, via: "frame" })
      yield* framed.ready()
      const resume = yield* openSocket({ key: human.api_key, query: `?after=${ready.cursor}` })
      yield* resume.ready()
      expect(counted.handedOn).toBe(1)
      framed.ws.terminate()
      yield* framed.waitClosed()
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
      expect(counted.upgraded).toBe(3)

      // the limit (4 a minute) counted once per socket by either path: the door's 2, the auth frame's and the
      // resume's; the next is refused by the general path with its 429, the door having taken nothing for it
      const limited = yield* openSocket({ key: human.api_key })
      yield* limited.waitClosed()
      expect(limited.rejected?.status).toBe(429)
      expect(limited.rejected?.body.error.code).toBe("rate_limited")
      expect(counted.handedOn).toBe(2)
    }))
})
