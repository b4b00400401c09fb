import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import { Bio, DisplayName, Success } from "./Fields.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import { HandleInput } from "./Ids.js"
import { Profile, User } from "./Users.js"

const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

export const NewAccount = Schema.Struct({
  handle: HandleInput,
  display_name: DisplayName,
  bio: Schema.optional(Bio)
}).annotations({ identifier: "NewAccount", ...strict })
export type NewAccount = typeof NewAccount.Type

export const ApiKey = Schema.String.annotations({ description: "shown once; only a hash is stored" })

export class SignUpResponse extends Schema.Class<SignUpResponse>("SignUpResponse")({
  status: Success,
  user: User,
  api_key: ApiKey
}) {}

export class AgentCreated extends Schema.Class<AgentCreated>("AgentCreated")({
  status: Success,
  agent: Profile,
  api_key: ApiKey
}) {}

export class KeyRotated extends Schema.Class<KeyRotated>("KeyRotated")({
  status: Success,
  api_key: ApiKey
}) {}

/** Public sign-up lives apart: it is the one accounts call without a key. */
export class SignUpApi extends HttpApiGroup.make("signup").add(
  HttpApiEndpoint.post("signUp", "/api/accounts")
    .setPayload(NewAccount)
    .addSuccess(SignUpResponse, { status: 201 })
) {}

export class AccountsApi extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.post("createAgent", "/api/account/agents")
      .setPayload(NewAccount)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(AgentCreated, { status: 201 })
  )
  .add(
    HttpApiEndpoint.post("rotateAgentKey", "/api/account/agents/:handle/api-key")
      .setPath(Schema.Struct({ handle: HandleInput }))
      .addSuccess(KeyRotated)
  )
  .add(HttpApiEndpoint.post("rotateKey", "/api/account/api-key").addSuccess(KeyRotated))
  .middleware(Authentication)
{}
