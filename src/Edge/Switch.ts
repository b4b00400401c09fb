import { Config, Duration } from "effect"

/**
 * `EDGE_HARDENING` (default true), the one switch over src/Edge/ and defined only here: false turns off the penalty
 * box and its tarpit, the per-address connection cap and write admission together, for an operator whose proxy in
 * front already does that work (README.md "Edge hardening"). While it is on, each piece's own settings tune it.
 */
export const edgeHardening = Config.boolean("EDGE_HARDENING").pipe(Config.withDefault(true))

/** A duration setting of src/Edge/, in milliseconds. */
export const millis = (name: string, fallback: number) =>
  Config.duration(name).pipe(Config.withDefault(Duration.millis(fallback)), Config.map(Duration.toMillis))
