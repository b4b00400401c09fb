import * as Cookies from "@effect/platform/Cookies"
import { Accounts as Api, type Auth } from "@shoal/domain"
import { Clock, Config, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { toPrincipal } from "../Accounts/Repo.js"
import { hashKey } from "./Keys.js"
import { SessionsRepo } from "./SessionsRepo.js"

type Headers = Readonly<Record<string, string | string[] | undefined>>

const one = (value: string | ReadonlyArray<string> | undefined) => typeof value === "string" ? value : value?.[0]

/** The session token the request's cookie holds, if any. */
export const sessionToken = (headers: Headers): string | undefined => {
  const cookie = one(headers["cookie"])
  if (cookie === undefined || !cookie.includes(Api.SESSION_COOKIE)) return undefined
  const token = Cookies.parseHeader(cookie)[Api.SESSION_COOKIE]
  return token !== undefined && /^[A-Za-z0-9_-]{20,100}$/.test(token) ? token : undefined
}

export const hostnameOf = (host: string) =>
  host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:\d+$/, "")

/**
 * Whether a request's `Origin` (the page that made it) is this host, any port: the console is served by the agent
 * API and calls the wallet on its own port of the same host. No `Origin` is same-origin for a plain GET.
 */
const sameHost = (headers: Headers, required: boolean) => {
  const origin = one(headers["origin"])
  if (origin === undefined) return !required
  const host = one(headers["host"])
  try {
    return host !== undefined && new URL(origin).hostname === new URL(`http://${hostnameOf(host)}`).hostname
  } catch {
    return false
  }
}

export type SessionCheck =
  | { readonly _tag: "None" }
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Found"; readonly principal: Auth.Principal }

const none: SessionCheck = { _tag: "None" }
const ended: SessionCheck = { _tag: "Ended" }

/**
 * Console sessions (issue 44): the browser holds a random token in an HttpOnly, SameSite=Strict cookie instead of
 * the key. A session stands for the key it was made from (the principal's `keyHash` is that key's, so a rotation
 * closes the sockets it opened, like the key's own). Looked up in the database on every use, uncached: a person in
 * a browser makes a handful of requests, and an ended session or revoked key is then refused at once on every node.
 */
export class ConsoleSessions extends Effect.Service<ConsoleSessions>()("Auth/ConsoleSessions", {
  effect: Effect.gen(function*() {
    const repo = yield* SessionsRepo
    const days = yield* Config.integer("CONSOLE_SESSION_DAYS").pipe(Config.withDefault(30))
    const maxAgeSeconds = Math.max(1, days) * 86_400

    /** A new session for the key `keyHash` names: the token for the cookie, and when it expires. */
    const create = (keyHash: string) =>
      Effect.gen(function*() {
        const token = randomBytes(32).toString("base64url")
        const expiresAt = new Date((yield* Clock.currentTimeMillis) + maxAgeSeconds * 1000).toISOString()
        yield* repo.insert({ token_hash: hashKey(token), key_hash: keyHash, expires_at: expiresAt })
        return { token, expiresAt, maxAgeSeconds }
      }).pipe(Effect.orDie)

    /** Ends the session a request's cookie names; false when it named none that was live. */
    const end = (headers: Headers) => {
      const token = sessionToken(headers)
      return token === undefined ? Effect.succeed(false) : Effect.orDie(repo.revoke(hashKey(token)))
    }

    const lookup = (token: string): Effect.Effect<SessionCheck> => {
      const sessionHash = hashKey(token)
      return Effect.map(Effect.orDie(repo.principal(sessionHash)), (found) =>
        Option.match(found, {
          onNone: () => ended,
          onSome: (row): SessionCheck => ({
            _tag: "Found",
            principal: { ...toPrincipal(row, row.key_hash), sessionHash }
          })
        }))
    }

    /**
     * An API request without a key: its cookie's session, if it also carries `X-Shoal-Console: 1` (a form or a page
     * of another site cannot add that header, nor pass CORS with it) and, with an `Origin`, comes from this host.
     */
    const forRequest = (headers: Headers): Effect.Effect<SessionCheck> => {
      const token = sessionToken(headers)
      return token === undefined || one(headers[Api.CONSOLE_HEADER]) !== "1" || !sameHost(headers, false)
        ? Effect.succeed(none)
        : lookup(token)
    }

    /**
     * A WebSocket upgrade without a key: a browser cannot add headers to it, but always sends `Origin`, which must be
     * this host (a page of another site opening the socket with the owner's cookie is refused).
     */
    const forSocket = (headers: Headers): Effect.Effect<SessionCheck> => {
      const token = sessionToken(headers)
      return token === undefined || !sameHost(headers, true) ? Effect.succeed(none) : lookup(token)
    }

    return { create, end, forRequest, forSocket, maxAgeSeconds } as const
  }),
  dependencies: [SessionsRepo.Default]
}) {}
