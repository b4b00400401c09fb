import { Errors } from "@shoal/domain"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer, type Server, STATUS_CODES } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"

export interface ServerOptions {
  /** a client must have sent its whole request head within this many ms (408 after) */
  readonly headersTimeoutMs: number
  /** …and its whole request, body included, within this many ms (408 after) */
  readonly requestTimeoutMs: number
  /** a request not answered within this many ms gets a JSON 503 (0: never) */
  readonly handlerTimeoutMs: number
  /** open connections at most (reset past it); 0: no cap */
  readonly maxConnections: number
  /** an idle keep-alive connection is closed after this many ms */
  readonly keepAliveTimeoutMs: number
}

/** Node's defaults are 60 s / 300 s, checked every 30 s: a client dripping its headers held a socket ~90 s. */
export const serverDefaults: ServerOptions = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  handlerTimeoutMs: 30_000,
  maxConnections: 10_000,
  keepAliveTimeoutMs: 5_000
}

/** The contract's error body, written here on the raw response or socket. */
const envelope = (code: string, message: string) => JSON.stringify({ status: "error", error: { code, message } })

const keep = Symbol("keepOnUpgrade")

/** `listener`, marked as a connection count's "close" listener: the event socket's take-over leaves it in place. */
export const keepOnUpgrade = (listener: () => void): () => void => Object.assign(listener, { [keep]: true as const })

/**
 * The event socket takes an upgraded socket away from the HTTP layer and drops its "close" listeners (the
 * server's would keep the request fiber alive); a listener marked `keepOnUpgrade` is a connection count's, and stays.
 */
export const closeListenersToKeep = (socket: Socket) =>
  socket.listeners("close").filter((l) => (l as { [keep]?: true })[keep] === true) as Array<() => void>

/** Reads nothing more from `tcp` (beyond what its stream has buffered): what the peer sends stays in the kernel. */
export const stopReading = (tcp: Socket) => {
  if (!tcp.destroyed) tcp.pause()
}

/**
 * At most `total` open connections: past it a new one is reset, so the process keeps its descriptors and memory
 * for the ones it serves. Counted on the socket, so an upgraded socket counts until it closes; counted on the
 * "connection" event, which also sees the connections handed to the server by src/Edge/ConnectionGate.ts.
 */
const capConnections = (server: Server, total: number) => {
  let open = 0
  server.on("connection", (socket: Socket) => {
    if (open >= total) return void socket.destroy()
    open++
    socket.once("close", keepOnUpgrade(() => void open--))
  })
}

/**
 * Every request is answered in bounded time, whatever a route or a body parser does: past the deadline, if
 * nothing has been written yet, a JSON 503. The handler runs on; its late answer is dropped. The event socket is
 * an upgrade, not a request, so it is not timed. A timer per request showed in profiles: one timer sweeps the
 * requests in flight (the map returned, which the server fills) a few times per deadline (at most 1 s late).
 */
const answerInTime = (server: Server, ms: number) => {
  const inFlight = new Map<ServerResponse, number>()
  const timeOut = (res: ServerResponse) => {
    if (res.headersSent || res.writableEnded) return
    const body = envelope(Errors.errorCodes.Unavailable[0], `the server did not answer within ${ms} ms; try again`)
    res.writeHead(Errors.errorCodes.Unavailable[1], {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      connection: "close"
    })
    res.end(body)
  }
  const sweep = setInterval(() => {
    const now = Date.now()
    // insertion order is arrival order: the first one still in time ends the sweep
    for (const [res, deadline] of inFlight) {
      if (deadline > now) break
      inFlight.delete(res)
      timeOut(res)
    }
  }, Math.max(10, Math.min(1_000, ms / 4))).unref()
  server.once("close", () => clearInterval(sweep))
  return inFlight
}

/** a protocol violation from a client address, for whoever keeps count */
export type Strike = (address: string | undefined) => void

/** What node's parser or timers report, as the contract's error (Errors.ts has the codes). */
const clientErrorFor = (code: string | undefined): readonly [readonly [code: string, status: number], string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [Errors.errorCodes.HeadersTooLarge, "the request headers are larger than the server accepts (16 KB)"]
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [Errors.errorCodes.PayloadTooLarge, "the chunk extensions of the request body are too large"]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [Errors.errorCodes.RequestTimeout, "the request was not received in time"]
    default:
      return [Errors.errorCodes.InvalidRequest, "the request is not valid HTTP/1.1"]
  }
}

/** The raw answer to a request node refused before the app saw it: the contract's envelope, then close. */
export const clientErrorResponse = (code: string | undefined): string => {
  const [[errorCode, status], message] = clientErrorFor(code)
  const body = envelope(errorCode, message)
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    "content-type: application/json\r\n" +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    "connection: close\r\n\r\n" + body
}

/**
 * A node server that holds requests arriving before the app's handler is attached: NodeHttpServer listens as its
 * layer is built, the handler is attached once the rest of the app has started, and a request in between would get
 * no answer (a hung health check at start-up). Its timeouts bound slow clients, errors node answers itself carry the
 * JSON envelope, and `strike` is told the address of each client answered 408 (the penalty box's, if any).
 */
export const createHoldingServer = (options: ServerOptions = serverDefaults, strike?: Strike) => {
  const server = createServer({
    headersTimeout: Math.min(options.headersTimeoutMs, options.requestTimeoutMs),
    requestTimeout: options.requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    // how often node looks for connections past those timeouts (30 s by default, which makes 10 s up to 40)
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, options.headersTimeoutMs / 4))
  })
  if (options.maxConnections > 0) capConnections(server, options.maxConnections)
  // each socket's latest response, for "clientError": what Node's own handler reads from a private field
  const responses = new WeakMap<Duplex, ServerResponse>()
  // node answers malformed framing (400), oversized headers (431) and slow clients (408) itself, before any request
  // reaches the app, with an empty body; here with the contract's JSON envelope when nothing of a response has been
  // written yet on the socket (as node's own handler decides), then closed. A 408 is a strike against the address
  server.on("clientError", (err: Error & { code?: string }, socket: Duplex) => {
    if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") strike?.((socket as Socket).remoteAddress)
    // a response half written (a pipelined request failed to parse behind it) must not have an error spliced into it
    const last = responses.get(socket)
    const midResponse = last !== undefined && last.headersSent && !last.writableFinished
    if (err.code !== "ECONNRESET" && socket.writable && !midResponse) {
      socket.end(clientErrorResponse(err.code))
      // a client that does not read its answer must not hold the socket
      setTimeout(() => socket.destroy(), 1_000).unref()
    } else {
      socket.destroy()
    }
  })
  const inFlight = options.handlerTimeoutMs > 0 ? answerInTime(server, options.handlerTimeoutMs) : undefined
  // one "close" listener for all responses (`this`): once done, nothing holds one (nor its request and the fiber that
  // answered it) to its socket's next request, which kept each long enough to be promoted (bench/README.md, "auth")
  function settled(this: ServerResponse) {
    inFlight?.delete(this)
    if (responses.get(this.req.socket) === this) responses.delete(this.req.socket)
  }
  // one listener for both (each listener of "request" is a call, and more than one a copy of the list, per request)
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    responses.set(req.socket, res)
    inFlight?.set(res, Date.now() + options.handlerTimeoutMs)
    res.on("close", settled)
  })
  const held: Array<[IncomingMessage, ServerResponse]> = []
  const hold = (req: IncomingMessage, res: ServerResponse) => void held.push([req, res])
  server.on("request", hold)
  const onListener = (event: string | symbol, listener: (req: IncomingMessage, res: ServerResponse) => void) => {
    if (event !== "request" || listener === hold) return
    server.off("request", hold)
    server.off("newListener", onListener)
    const waiting = held.splice(0)
    if (waiting.length > 0) setImmediate(() => waiting.forEach(([req, res]) => listener(req, res)))
  }
  server.on("newListener", onListener)
  return server
}
