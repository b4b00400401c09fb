import * as Socket from "@effect/platform/Socket"
import { Events } from "@shoal/domain"
import { Clock, Data, Deferred, Duration, Effect, Mailbox, Schema, Stream } from "effect"

export interface EventStreamOptions {
  /** the API's base URL, e.g. http://127.0.0.1:8080 (http → ws, https → wss) */
  readonly baseUrl: string
  /**
   * the key, sent in the first frame; without it the connection must be authenticated otherwise (the console's
   * session cookie, which a browser sends with the upgrade to its own origin)
   */
  readonly apiKey?: string | undefined
  /** resume after this cursor; without it the stream starts live at the first connection */
  readonly after?: number | undefined
  /** first reconnect delay, doubled per failed attempt up to `maxBackoff` (defaults 500 ms and 30 s) */
  readonly initialBackoff?: Duration.DurationInput | undefined
  readonly maxBackoff?: Duration.DurationInput | undefined
  /** a JSON ping this often; silence for two intervals means the connection is dead (default 30 s) */
  readonly pingInterval?: Duration.DurationInput | undefined
  /**
   * events held for a consumer slower than the stream (default 1,000), beside the batch it is working through. When
   * the buffer is full the connection is closed, and opened again with `?after=` once the consumer has taken what is
   * held: memory stays bounded, and nothing is lost or repeated.
   */
  readonly bufferSize?: number | undefined
}

/**
 * Reconnecting would not help: the key was refused or rotated (close 4401), or the cursor to resume from is ahead of
 * the server's newest event (its data was reset): start again without `after`.
 */
export class EventStreamError extends Data.TaggedError("EventStreamError")<{
  readonly reason: "Unauthorized" | "CursorAhead"
  readonly message: string
}> {}

/**
 * A WebSocket cannot show why its upgrade was refused (browsers hide the HTTP answer), so after a failed resume the
 * same cursor is asked of the polling endpoint, which answers the same check with a readable 400.
 */
const cursorRefusal = (options: EventStreamOptions, after: number) =>
  Effect.tryPromise(async () => {
    const url = new URL("/api/agent/events", options.baseUrl)
    url.searchParams.set("after", String(after))
    url.searchParams.set("limit", "1")
    const res = await fetch(url, {
      headers: options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }
    })
    if (res.status !== 400) return undefined
    // details name the field at fault (`ErrorDetails`: `{ field, issues }`)
    const body = (await res.json()) as { error?: { message?: string; details?: { field?: unknown } } }
    const aboutAfter = body.error?.details?.field === "after"
    return aboutAfter ? body.error?.message ?? "the cursor is ahead of the newest event" : undefined
  }).pipe(Effect.orElseSucceed(() => undefined))

// an event frame whose envelope is not in the catalog falls to the last member: its cursor without the event
const SkippedEventFrame = Schema.Struct({ type: Schema.Literal("event"), cursor: Events.Cursor })
const decodeFrame = Schema.decodeUnknownOption(Schema.parseJson(Schema.Union(
  Events.ReadyFrame,
  Events.CatalogEventFrame,
  SkippedEventFrame,
  Events.PingFrame,
  Events.PongFrame,
  Events.ErrorFrame
)))

const socketUrl = (baseUrl: string, after: number | undefined) => {
  const url = new URL("/api/agent/ws", baseUrl.replace(/^http/, "ws"))
  if (after !== undefined) url.searchParams.set("after", String(after))
  return url.toString()
}

type Outcome =
  | { readonly _tag: "Closed"; readonly wasReady: boolean }
  | { readonly _tag: "Full"; readonly next: Events.CatalogEventFrame }
  | { readonly _tag: "Fatal"; readonly error: EventStreamError }

/**
 * The account's events, in cursor order, decoded into the catalog (narrow on `event.type` for typed `data`), over
 * GET /api/agent/ws: authenticates with a first frame (so it also works where a WebSocket cannot carry headers),
 * reconnects with exponential backoff and resumes from the last cursor it buffered, so a dropped connection loses
 * nothing and repeats nothing. A slow consumer is not met by an ever growing buffer: a socket cannot be paused, so a
 * full buffer ends the connection until the consumer catches up (see `bufferSize`). Needs a
 * `Socket.WebSocketConstructor` (`NodeSocket.layerWebSocketConstructor` on Node,
 * `Socket.layerWebSocketConstructorGlobal` in a browser).
 */
export const make = (
  options: EventStreamOptions
): Stream.Stream<Events.CatalogEventFrame, EventStreamError, Socket.WebSocketConstructor> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const capacity = Math.max(1, options.bufferSize ?? 1_000)
    // `unsafeOffer` refuses past capacity: the socket reader never waits, it stops
    const mailbox = yield* Mailbox.make<Events.CatalogEventFrame, EventStreamError>({ capacity, strategy: "suspend" })
    const initial = Duration.toMillis(options.initialBackoff ?? Duration.millis(500))
    const max = Duration.toMillis(options.maxBackoff ?? Duration.seconds(30))
    const ping = Duration.toMillis(options.pingInterval ?? Duration.seconds(30))
    let last = options.after

    const connectOnce = Effect.gen(function*() {
      const socket = yield* Socket.makeWebSocket(socketUrl(options.baseUrl, last))
      const write = yield* socket.writer
      let wasReady = false
      /** the first event that did not fit; the connection ends and later frames are ignored */
      let overflow: Events.CatalogEventFrame | undefined
      const full = yield* Deferred.make<void>()
      const clock = yield* Effect.clock
      let heardAt = clock.unsafeCurrentTimeMillis()

      // synchronous, so frames reach the mailbox in the order they arrived
      const onFrame = (data: string | Uint8Array): Effect.Effect<void> | void => {
        heardAt = clock.unsafeCurrentTimeMillis()
        const frame = decodeFrame(typeof data === "string" ? data : new TextDecoder().decode(data))
        if (frame._tag === "None") return
        const f = frame.value
        if (f.type === "ready") {
          wasReady = true
          if (last === undefined) last = f.cursor
        } else if (f.type === "event" && overflow === undefined && (last === undefined || f.cursor > last)) {
          // a type (or shape) from a newer server is passed over, cursor and all: the stream goes on without it
          if (!("event" in f)) {
            last = f.cursor
            return Effect.logDebug("EventStream: skipped an event this client does not know", f.cursor)
          }
          if (mailbox.unsafeOffer(f)) last = f.cursor
          else {
            overflow = f
            Deferred.unsafeDone(full, Effect.void)
          }
        } else if (f.type === "ping") {
          return Effect.ignore(write(JSON.stringify({ type: "pong" })))
        }
      }

      // keep-alive: a ping per interval; two silent intervals and the connection is given up
      const watchdog = Effect.gen(function*() {
        while (true) {
          yield* Effect.sleep(ping)
          if ((yield* Clock.currentTimeMillis) - heardAt > 2 * ping) return
          yield* Effect.ignore(write(JSON.stringify({ type: "ping" })))
        }
      })

      const run = socket.runRaw(onFrame, {
        onOpen: options.apiKey === undefined
          ? Effect.void
          : Effect.ignore(write(JSON.stringify({ type: "auth", api_key: options.apiKey })))
      })
      // whichever ends first, failing or not: the socket closing, the watchdog giving up, or the buffer filling
      const refused = yield* Effect.raceFirst(run, watchdog).pipe(
        Effect.raceFirst(Deferred.await(full)),
        Effect.as(undefined),
        Effect.catchAll((e) =>
          Effect.succeed(Socket.SocketCloseError.is(e) && e.code === Events.CloseCodes.unauthorized ? e : undefined)
        )
      )
      // leaving the scope closes the socket
      const outcome: Outcome = overflow !== undefined
        ? { _tag: "Full", next: overflow }
        : refused !== undefined
        ? {
          _tag: "Fatal",
          error: new EventStreamError({
            reason: "Unauthorized",
            message: refused.closeReason || "the API key was refused"
          })
        }
        : { _tag: "Closed", wasReady }
      return outcome
    }).pipe(Effect.scoped)

    const loop = Effect.gen(function*() {
      let attempt = 0
      while (true) {
        const outcome = yield* connectOnce
        if (outcome._tag === "Fatal") return yield* mailbox.fail(outcome.error)
        if (outcome._tag === "Full") {
          // waits until the consumer takes what is held (it takes it all at once), then resumes right after it
          yield* mailbox.offer(outcome.next)
          last = outcome.next.cursor
          attempt = 0
          continue
        }
        if (outcome.wasReady) attempt = 0
        else if (last !== undefined) {
          const refusal = yield* cursorRefusal(options, last)
          if (refusal !== undefined) {
            return yield* mailbox.fail(new EventStreamError({ reason: "CursorAhead", message: refusal }))
          }
        }
        const delay = Math.min(max, initial * 2 ** attempt)
        attempt++
        // jitter, so a restarted server is not met by every client in the same millisecond
        yield* Effect.sleep(delay / 2 + Math.random() * delay / 2)
      }
    })
    yield* Effect.forkScoped(loop)
    return Mailbox.toStream(mailbox)
  }))
