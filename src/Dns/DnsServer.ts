import type { Packet } from "dns-packet"
import { Clock, type Config, Context, Data, Duration, Effect, Layer } from "effect"
import { makeAnswerCache } from "./AnswerCache.js"
import { makeAnswerer } from "./Answerer.js"
import { DnsConfig } from "./DnsConfig.js"
import { makeRateLimiter } from "./RateLimit.js"
import { RecordSource } from "./RecordSource.js"
import { answer } from "./Responder.js"
import { makeRunner } from "./Runner.js"
import { bindTcp } from "./Tcp.js"
import { bindUdp } from "./Udp.js"
import { normalizeZone } from "./Zone.js"

type Settings = Config.Config.Success<typeof DnsConfig>

/** The settings DnsConfig reads, of which host, port, zone and rateLimit must be given. */
export type DnsServerOptions = Pick<Settings, "host" | "port" | "zone" | "rateLimit"> & Partial<Settings> & {
  /** A query whose lookup takes longer is answered SERVFAIL (default 2 seconds). */
  readonly lookupTimeout?: Duration.DurationInput | undefined
}

export class DnsBindError extends Data.TaggedError("DnsBindError")<{
  readonly transport: "udp" | "tcp"
  readonly cause: unknown
}> {}

/**
 * Binds UDP and TCP and answers until the scope closes; in-flight answers are interrupted with it. Its one loop (the
 * lookups' deadlines, src/Dns/Runner.ts) runs under the supervisor. Gives where the responder listens.
 */
const make = (options: DnsServerOptions) =>
  Effect.gen(function*() {
    const zone = normalizeZone(options.zone)
    const clock = yield* Effect.clock
    const serial = Math.floor((yield* Clock.currentTimeMillis) / 1000) >>> 0
    const runner = yield* makeRunner<RecordSource>({
      timeoutMs: Duration.toMillis(options.lookupTimeout ?? Duration.seconds(2)),
      maxPending: 10_000
    })
    const answerOptions = { serial, nsAddress: options.nsAddress }
    const limiter = options.rateLimit === false
      ? null
      : makeRateLimiter(options.rateLimit, () => Number(clock.unsafeCurrentTimeNanos() / 1_000_000n))

    const source = yield* RecordSource
    const cache = makeAnswerCache()
    yield* Effect.acquireRelease(
      Effect.sync(() => source.onChange(cache.invalidate)),
      (unsubscribe) => Effect.sync(unsubscribe)
    )
    const answerer = makeAnswerer({ zone, answer: answerOptions, source, cache, limiter })

    const udpPort = yield* bindUdp({
      host: options.host,
      port: options.port,
      answerer,
      runner,
      floodBrake: options.floodBrake
    }).pipe(
      Effect.mapError((cause) => new DnsBindError({ transport: "udp", cause }))
    )
    const tcpPort = yield* bindTcp({
      host: options.host,
      port: options.port,
      respond: (query: Packet) => answer(query, zone, answerOptions),
      runner,
      idleMs: options.tcpIdleMs ?? 10_000
    }).pipe(Effect.mapError((cause) => new DnsBindError({ transport: "tcp", cause })))
    yield* Effect.logInfo(`dns responder for ${zone} on ${options.host} udp/${udpPort} tcp/${tcpPort}`)
    return { host: options.host, zone, udpPort, tcpPort }
  })

/** The running responder; its layer reads `DNS_*` through Config and needs a RecordSource. */
export class DnsServer
  extends Context.Tag("Dns/DnsServer")<DnsServer, Effect.Effect.Success<ReturnType<typeof make>>>()
{
  static readonly make = make
  static readonly layer = Layer.scoped(DnsServer, Effect.flatMap(DnsConfig, make))
}
