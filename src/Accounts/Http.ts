import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Accounts as Api, Auth, Errors, ShoalApi } from "@shoal/domain"
import { Config, Effect } from "effect"
import { Accounts } from "../Accounts.js"
import { presentedKey } from "../Auth.js"
import { currentUser } from "../Auth/Caller.js"
import { clientAddress, limitKey } from "../Auth/ClientAddress.js"
import { enforce, RateLimiter } from "../Auth/RateLimiter.js"
import { ConsoleSessions } from "../Auth/Sessions.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { Profiles } from "../Profiles.js"

export const SignUpHttpLive = HttpApiBuilder.group(ShoalApi, "signup", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const profiles = yield* Profiles
    const limiter = yield* RateLimiter
    const trustProxy = yield* Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false))
    return handlers.handle("signUp", ({ payload }) =>
      Effect.gen(function*() {
        // public and keyless: limited per client address (SIGNUP_RATE_LIMIT an hour), counted before anything is made
        const request = yield* HttpServerRequest.HttpServerRequest
        const decision = yield* limiter.takeSignUp(limitKey(clientAddress(request, trustProxy)))
        if (decision !== undefined) yield* enforce(decision, "sign-ups per hour from one address")
        const { apiKey, id } = yield* accounts.signUp(payload)
        const user = yield* profiles.freshMe(id)
        return new Api.SignUpResponse({ status: "success", user, api_key: apiKey })
      }))
  })).pipe(withOnly(Accounts, Profiles, RateLimiter))

/** The session cookie's: `Secure` when the browser reached us by HTTPS (directly, or as a trusted proxy says). */
const cookieOptions = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean) => {
  const secure = request.url.startsWith("https:") ||
    (trustProxy && request.headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase() === "https")
  return { httpOnly: true, sameSite: "strict", path: "/", secure } as const
}

export const AccountsHttpLive = HttpApiBuilder.group(ShoalApi, "accounts", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const profiles = yield* Profiles
    const sessions = yield* ConsoleSessions
    const trustProxy = yield* Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false))

    // from a key presented in a header only: a session's cookie does not beget sessions (they would outlive its end)
    const createSession = Effect.gen(function*() {
      const caller = yield* currentUser
      const request = yield* HttpServerRequest.HttpServerRequest
      if (presentedKey(request.headers) === undefined || caller.keyHash === "") {
        return yield* new Errors.Unauthorized({
          message: "a console session is made from an API key: send it as Authorization: Bearer <key>"
        })
      }
      const made = yield* sessions.create(caller.keyHash)
      yield* HttpApp.appendPreResponseHandler((_req, res) =>
        Effect.succeed(HttpServerResponse.unsafeSetCookie(res, Api.SESSION_COOKIE, made.token, {
          ...cookieOptions(request, trustProxy),
          maxAge: `${made.maxAgeSeconds} seconds`
        }))
      )
      return new Api.SessionCreated({ status: "success", handle: caller.handle, expires_at: made.expiresAt })
    })
    return handlers
      .handle(
        "createAgent",
        idempotent("createAgent", Api.AgentCreated, ({ payload }) =>
          Effect.gen(function*() {
            const owner = yield* currentUser
            const { apiKey, id } = yield* accounts.createAgent(owner, payload)
            const agent = yield* profiles.freshProfile(id)
            return new Api.AgentCreated({ status: "success", agent, api_key: apiKey })
          }), { redact: (created) => created.redacted() })
      )
      .handle("rotateAgentKey", ({ path }) =>
        Effect.flatMap(currentUser, (owner) => accounts.rotateAgentKey(owner, path.handle)))
      .handle("agentKeys", ({ path }) =>
        Effect.flatMap(currentUser, (caller) => accounts.listKeys(caller, path.handle)))
      .handle("renameAgentKey", ({ path, payload }) =>
        Effect.flatMap(currentUser, (caller) =>
          accounts.renameKey(caller, path.handle, path.key_id, payload.name)))
      .handle("keys", () =>
        Effect.flatMap(currentUser, (caller) =>
          accounts.listKeys(caller)))
      .handle("renameKey", ({ path, payload }) =>
        Effect.flatMap(currentUser, (caller) =>
          accounts.renameKey(caller, undefined, path.key_id, payload.name)))
      .handle("createSession", () =>
        createSession)
      .handle("rotateKey", () =>
        Effect.flatMap(currentUser, accounts.rotateKey))
  })).pipe(withOnly(Accounts, Profiles, ConsoleSessions, Idempotency, Auth.Authentication))

/** Signing out: the cookie's session ended and the cookie cleared, whether or not it was still live. */
export const SessionHttpLive = HttpApiBuilder.group(ShoalApi, "session", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* ConsoleSessions
    const trustProxy = yield* Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false))
    return handlers.handle("endSession", () =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const ended = yield* sessions.end(request.headers)
        yield* HttpApp.appendPreResponseHandler((_req, res) =>
          Effect.succeed(HttpServerResponse.expireCookie(res, Api.SESSION_COOKIE, cookieOptions(request, trustProxy)))
        )
        return new Api.SessionEnded({ status: "success", ended })
      }))
  })).pipe(withOnly(ConsoleSessions))
