import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import * as Shoal from "@shoal/client"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"

/** The agent API is the page's own origin; the wallet listens on the same host, on its own port. */
export const baseUrl = location.origin
const walletPort = document.querySelector<HTMLMetaElement>("meta[name=shoal-wallet-port]")?.content ?? "8081"
export const walletUrl = `${location.protocol}//${location.hostname}:${/^\d+$/.test(walletPort) ? walletPort : "8081"}`

const CURSOR = "shoal.cursor"
/** The last event cursor seen, so a reloaded page resumes the stream where it stopped. */
export const cursor = {
  get: (): number | undefined => {
    const v = Number(sessionStorage.getItem(CURSOR))
    return Number.isSafeInteger(v) && v > 0 ? v : undefined
  },
  set: (value: number) => sessionStorage.setItem(CURSOR, String(value)),
  clear: () => sessionStorage.removeItem(CURSOR)
}

// fetch, without the `traceparent` header: the wallet is another origin, and a header its CORS does not allow would
// make the browser refuse every wallet call (the page traces nothing anyway). Every call carries the session's cookie
// (the wallet's port too: credentials "include") and `X-Shoal-Console: 1`, without which the server ignores the
// cookie: a page of another site can neither set that header nor get it past CORS (src/Auth/Sessions.ts)
const runtime = ManagedRuntime.make(
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      client.pipe(
        HttpClient.withTracerPropagation(false),
        HttpClient.mapRequest(HttpClientRequest.setHeader("x-shoal-console", "1"))
      ))
  ).pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { credentials: "include" }))
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

/**
 * Call the agent API as the signed-in session (its HttpOnly cookie, which the page cannot read), or with `apiKey`
 * (signing in); a failure rejects with the error in words.
 */
export const api = <A, E>(f: (client: Shoal.Client) => Effect.Effect<A, E>, apiKey?: string): Promise<A> =>
  apiKey === undefined
    ? run(Effect.flatMap(sessionClient, f))
    : run(Effect.flatMap(Shoal.make({ baseUrl, apiKey }), f))

// the session's clients are made once: deriving a client walks every endpoint of the API, which cost each call
// (two at a page's start) a noticeable share of a load. A client with a key is made per call and not kept
const sessionClient = Effect.cached(Shoal.make({ baseUrl })).pipe(Effect.runSync)
const sessionWallet = Effect.cached(Shoal.makeWallet({ baseUrl: walletUrl })).pipe(Effect.runSync)

/** Call the Gems wallet API as the signed-in session. */
export const wallet = <A, E>(f: (client: Shoal.WalletClient) => Effect.Effect<A, E>): Promise<A> =>
  run(Effect.flatMap(sessionWallet, f))

/**
 * The browser's session: made from a key once (the server sets an HttpOnly, SameSite=Strict cookie), so no key is
 * kept in the page or its storage, and a new tab is signed in too. Ending it signs every tab of this browser out.
 */
const SIGNED_IN = "shoal.signedIn"
export const session = {
  start: async (key: string) => {
    const made = await api((c) => c.accounts.createSession(), key)
    localStorage.setItem(SIGNED_IN, "1")
    return made
  },
  end: async () => {
    cursor.clear()
    localStorage.removeItem(SIGNED_IN)
    await api((c) => c.session.endSession())
  },
  /**
   * Whether this browser may hold a session (a flag, not a secret: the cookie is out of the page's reach). Without
   * it a first visit shows the sign-in at once instead of asking the server and being refused.
   */
  maybe: () => localStorage.getItem(SIGNED_IN) === "1",
  forget: () => localStorage.removeItem(SIGNED_IN)
}

/** A fresh Idempotency-Key per submission: a retried request (a lost answer) is not applied twice. */
export const idempotent = () => {
  // getRandomValues works on any origin; randomUUID only in a secure context (not http on a LAN address)
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return { "idempotency-key": Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("") }
}

export { runtime }
