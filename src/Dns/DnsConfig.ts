import { Config, Option } from "effect"
import { defaultFloodBrake, type FloodBrakeOptions } from "./FloodBrake.js"
import type { RateLimitOptions } from "./RateLimit.js"

const nonNegative = (config: Config.Config<number>, fallback: number) =>
  config.pipe(Config.withDefault(fallback), Config.validate({ message: "a number >= 0", validation: (n) => n >= 0 }))

/** `DNS_RRL_RATE=0` turns response rate limiting off. */
const rateLimit: Config.Config<RateLimitOptions | false> = Config.all({
  perSecond: nonNegative(Config.number("DNS_RRL_RATE"), 200),
  burst: nonNegative(Config.number("DNS_RRL_BURST"), 400),
  slip: nonNegative(Config.integer("DNS_RRL_SLIP"), 2)
}).pipe(Config.map((options) => options.perSecond > 0 && options.burst > 0 ? options : false))

/** `DNS_FLOOD_DROPS=0` turns the flood brake off (src/Dns/Udp.ts, `bindUdp`). */
const floodBrake: Config.Config<FloodBrakeOptions> = Config.all({
  drops: nonNegative(Config.integer("DNS_FLOOD_DROPS"), defaultFloodBrake.drops),
  windowMs: nonNegative(Config.integer("DNS_FLOOD_WINDOW_MS"), defaultFloodBrake.windowMs),
  pauseMs: nonNegative(Config.integer("DNS_FLOOD_PAUSE_MS"), defaultFloodBrake.pauseMs),
  maxPauseMs: nonNegative(Config.integer("DNS_FLOOD_MAX_PAUSE_MS"), defaultFloodBrake.maxPauseMs)
})

/** The responder's settings, from the environment through `Config`. */
export const DnsConfig = Config.all({
  host: Config.string("DNS_HOST").pipe(Config.withDefault("127.0.0.1")),
  /** 0 binds UDP and TCP to two ephemeral ports. */
  port: Config.integer("DNS_PORT").pipe(
    Config.withDefault(5353),
    Config.validate({ message: "a port between 0 and 65535", validation: (n) => n >= 0 && n <= 65535 })
  ),
  zone: Config.string("DNS_ZONE").pipe(
    Config.withDefault("shoal.local"),
    Config.validate({ message: "a non-empty zone name", validation: (zone) => zone.replace(/\./g, "").length > 0 })
  ),
  rateLimit,
  floodBrake,
  tcpIdleMs: nonNegative(Config.integer("DNS_TCP_IDLE_MS"), 10_000),
  nsAddress: Config.option(Config.string("DNS_NS_IPV4")).pipe(Config.map(Option.getOrUndefined))
})
