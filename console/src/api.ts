import { FetchHttpClient, HttpClient } from "@effect/platform"
import * as Shoal from "@shoal/client"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"

/** The agent API is the page's own origin; the wallet listens on the same host, on its own port. */
export const baseUrl = location.origin
const walletPort = document.querySelector<HTMLMetaElement>("meta[name=shoal-wallet-port]")?.content ?? "8081"
export const walletUrl = `${location.protocol}//${location.hostname}:${/^\d+$/.test(walletPort) ? walletPort : "8081"}`

const KEY = "shoal.apiKey"
/** The key lives in this tab's session storage only: never in a URL, gone when the tab closes. */
export const session = {
  key: (): string | undefined => sessionStorage.getItem(KEY) ?? undefined,
  set: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => {
    sessionStorage.removeItem(KEY)
    sessionStorage.removeItem(CURSOR)
  }
}

const CURSOR = "shoal.cursor"
/** The last event cursor seen, so a reloaded page resumes the stream where it stopped. */
export const cursor = {
  get: (): number | undefined => {
    const v = Number(sessionStorage.getItem(CURSOR))
    return Number.isSafeInteger(v) && v > 0 ? v : undefined
  },
  set: (value: number) => sessionStorage.setItem(CURSOR, String(value))
}

// fetch, without the `traceparent` header: the wallet is another origin, and a header its CORS does not allow would
// make the browser refuse every wallet call (the page traces nothing anyway)
const runtime = ManagedRuntime.make(
  Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, HttpClient.withTracerPropagation(false))).pipe(
    Layer.provide(FetchHttpClient.layer)
  )
)

const LABELS: Record<string, string> = {
  InvalidRequest: "Invalid request",
  Unauthorized: "Not signed in (the key was refused)",
  Forbidden: "Not allowed",
  NotFound: "Not found",
  Conflict: "Conflict",
  PayloadTooLarge: "Too large",
  UnsupportedMediaType: "Unsupported media type",
  Unprocessable: "Cannot do that",
  RateLimited: "Too many requests",
  InternalError: "Server error",
  Unavailable: "The service is unavailable"
}

/** An error of the API (or of the network) in words: the API's own message, which names the fields and the fix. */
export const describe = (error: unknown): string => {
  const e = error as { _tag?: string; message?: string; details?: unknown; reason?: string; response?: any }
  const label = e?._tag !== undefined ? LABELS[e._tag] : undefined
  if (label !== undefined) return `${label}: ${e.message ?? ""}`
  if (e?._tag === "RequestError") return "The server could not be reached. Check that Shoal is running."
  if (e?._tag === "ResponseError") {
    const status = e.response?.status
    return `The server answered ${status ?? "unexpectedly"}${e.message ? `: ${e.message}` : ""}`
  }
  if (e?._tag === "ParseError") return "The server's answer was not understood (is the console older than the API?)"
  return e?.message ?? String(error)
}

const run = async <A>(effect: Effect.Effect<A, unknown, HttpClient.HttpClient>): Promise<A> => {
  const exit = await runtime.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw new Error(describe(Cause.squash(exit.cause)))
}

/** Call the agent API with the session's key (or `apiKey`); a failure rejects with the error in words. */
export const api = <A, E>(
  f: (client: Shoal.Client) => Effect.Effect<A, E>,
  apiKey: string | undefined = session.key()
): Promise<A> => run(Effect.flatMap(Shoal.make({ baseUrl, apiKey }), f))

/** Call the Gems wallet API with the session's key. */
export const wallet = <A, E>(f: (client: Shoal.WalletClient) => Effect.Effect<A, E>): Promise<A> =>
  run(Effect.flatMap(Shoal.makeWallet({ baseUrl: walletUrl, apiKey: session.key() }), f))

/** A fresh Idempotency-Key per submission: a retried request (a lost answer) is not applied twice. */
export const idempotent = () => {
  // getRandomValues works on any origin; randomUUID only in a secure context (not http on a LAN address)
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return { "idempotency-key": Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("") }
}

export { runtime }
