import { Context, Effect } from "effect"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Duplex } from "node:stream"

/**
 * A front-door lane answers the plain case of one hot call on Node's own request and response, before Effect's
 * HTTP server makes the request a fiber: for a call that is an in-memory touch (the heartbeat, every 15 minutes
 * from every agent), that fiber and its response plumbing cost more than the call itself. `answer` either writes
 * the whole answer synchronously and says `true`, or writes nothing and says `false`, and the request goes on to
 * the app as usual (src/Http/FastLane.ts, then the router): every other case, error and envelope has one
 * implementation there. A lane must answer exactly what the general path would (test/Http/FrontDoor.test.ts).
 *
 * A lane that must wait (for a body, for a handler that may suspend) says `true` and so takes the request: it then
 * writes the answer later, or calls `next` once, before writing anything, to hand the request on to the app.
 */
export interface NodeLane {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly answer: (request: IncomingMessage, response: ServerResponse, next: () => void) => boolean
}

/**
 * The same for an upgrade (the event socket): `answer` takes the request's socket and upgrades it itself, or hands
 * the request on with `next` (at once or later, having written nothing) to the app's upgrade path.
 */
export interface NodeUpgradeLane {
  readonly method: "GET"
  readonly path: string
  readonly upgrade: true
  readonly answer: (request: IncomingMessage, socket: Duplex, head: Buffer, next: () => void) => boolean
}

/**
 * A gate answers, before every lane and the app, any request it refuses outright (a write the admission queue sheds,
 * src/Http/WriteAdmission.ts): it writes the whole answer synchronously and says `true`, or writes nothing and says
 * `false`. Refusing a request at the door costs a fraction of what the same answer costs through Effect's server,
 * and a refusal matters most when there is no time to spare.
 */
export type NodeGate = (request: IncomingMessage, response: ServerResponse) => boolean

/** A JSON answer written whole, headers in the order the general path writes them (then the body's own). */
export const writeJson = (
  response: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: unknown
) => {
  writeJsonText(response, status, headers, JSON.stringify(body))
}

/** `writeJson` of a body already in its JSON text. */
export const writeJsonText = (
  response: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  text: string
) => {
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text)
  })
  response.end(text)
}

/** The lanes in front of one HTTP server: registered by the app once its services are built. */
export class FrontDoor extends Context.Tag("Http/FrontDoor")<FrontDoor, {
  readonly gates: Set<NodeGate>
  readonly lanes: Map<string, NodeLane>
  readonly upgrades: Map<string, NodeUpgradeLane>
}>() {}

export const make = (): Context.Tag.Service<FrontDoor> => ({
  gates: new Set(),
  lanes: new Map(),
  upgrades: new Map()
})

/** The lanes, registered for as long as the scope is open. */
export const register = (lanes: ReadonlyArray<NodeLane | NodeUpgradeLane>) =>
  Effect.flatMap(Effect.serviceOption(FrontDoor), (door) => {
    if (door._tag === "None" || lanes.length === 0) return Effect.void
    const mapOf = (lane: NodeLane | NodeUpgradeLane): Map<string, NodeLane | NodeUpgradeLane> =>
      "upgrade" in lane ? door.value.upgrades : door.value.lanes
    return Effect.acquireRelease(
      Effect.sync(() => lanes.forEach((lane) => mapOf(lane).set(lane.path, lane))),
      () =>
        Effect.sync(() => lanes.forEach((lane) => mapOf(lane).get(lane.path) === lane && mapOf(lane).delete(lane.path)))
    )
  })

/** A gate, registered for as long as the scope is open. */
export const registerGate = (gate: NodeGate) =>
  Effect.flatMap(Effect.serviceOption(FrontDoor), (door) =>
    door._tag === "None"
      ? Effect.void
      : Effect.acquireRelease(
        Effect.sync(() => door.value.gates.add(gate)),
        () => Effect.sync(() => door.value.gates.delete(gate))
      ))

/**
 * Puts the door's gates and lanes in front of every listener of the server's "request" event: a request a gate or
 * a lane answers reaches no listener (the app's handler, the handler timeout's bookkeeping); any other does, as
 * before. A lane that throws before writing leaves the request to the app.
 */
export const install = (server: Server, door: Context.Tag.Service<FrontDoor>) => {
  const emit = server.emit
  server.emit = function(this: Server, event: string | symbol, ...args: Array<any>): boolean {
    if (event === "request" && door.gates.size > 0) {
      for (const gate of door.gates) if (gate(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
    }
    if (event === "request" && door.lanes.size > 0) {
      const request = args[0] as IncomingMessage
      const lane = door.lanes.get(request.url ?? "")
      if (lane !== undefined && lane.method === request.method) {
        const response = args[1] as ServerResponse
        const next = () => void emit.apply(this, [event, ...args] as unknown as Parameters<Server["emit"]>)
        try {
          if (lane.answer(request, response, next)) return true
        } catch (error) {
          if (response.headersSent) {
            response.destroy(error as Error)
            return true
          }
        }
      }
    }
    if (event === "upgrade" && door.upgrades.size > 0) {
      const request = args[0] as IncomingMessage
      const lane = door.upgrades.get(request.url ?? "")
      if (lane !== undefined && lane.method === request.method) {
        const next = () => void emit.apply(this, [event, ...args] as unknown as Parameters<Server["emit"]>)
        // a lane's throw before it upgraded leaves the request to the app, as a request lane's does
        try {
          if (lane.answer(request, args[1] as Duplex, args[2] as Buffer, next)) return true
        } catch {
          // to the app
        }
      }
    }
    return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>)
  } as Server["emit"]
  return server
}
