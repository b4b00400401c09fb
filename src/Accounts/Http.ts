import { HttpApiBuilder } from "@effect/platform"
import { Accounts as Api, Auth, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { Accounts } from "../Accounts.js"
import { idempotent } from "../Http/Idempotency.js"
import { Profiles } from "../Profiles.js"

export const SignUpHttpLive = HttpApiBuilder.group(ShoalApi, "signup", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const profiles = yield* Profiles
    return handlers.handle("signUp", ({ payload }) =>
      Effect.gen(function*() {
        const { apiKey, id } = yield* accounts.signUp(payload)
        const user = yield* profiles.freshMe(id)
        return new Api.SignUpResponse({ status: "success", user, api_key: apiKey })
      }))
  }))

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
  }))
