import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Accounts as Api, Auth, ShoalApi } from "@shoal/domain"
import { Config, Effect } from "effect"
import { Accounts } from "../Accounts.js"
import { clientAddress, limitKey } from "../Auth/ClientAddress.js"
import { enforce, RateLimiter } from "../Auth/RateLimiter.js"
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

export const AccountsHttpLive = HttpApiBuilder.group(ShoalApi, "accounts", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const profiles = yield* Profiles
    return handlers
      .handle(
        "createAgent",
        idempotent("createAgent", Api.AgentCreated, ({ payload }) =>
          Effect.gen(function*() {
            const owner = yield* Auth.CurrentUser
            const { apiKey, id } = yield* accounts.createAgent(owner, payload)
            const agent = yield* profiles.freshProfile(id)
            return new Api.AgentCreated({ status: "success", agent, api_key: apiKey })
          }), { redact: (created) => created.redacted() })
      )
      .handle("rotateAgentKey", ({ path }) =>
        Effect.flatMap(Auth.CurrentUser, (owner) =>
          accounts.rotateAgentKey(owner, path.handle)).pipe(
            Effect.map((apiKey) => new Api.KeyRotated({ status: "success", api_key: apiKey }))
          ))
      .handle("rotateKey", () =>
        Effect.flatMap(Auth.CurrentUser, accounts.rotateKey).pipe(
          Effect.map((apiKey) =>
            new Api.KeyRotated({ status: "success", api_key: apiKey })
          )
        ))
  })).pipe(withOnly(Accounts, Profiles, Idempotency, Auth.Authentication))
