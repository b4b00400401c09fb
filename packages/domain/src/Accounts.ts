import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
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

/** What a replayed answer carries instead of a key: the key was shown once and only its hash is stored. */
export const REDACTED_KEY = "redacted"

export const redactedKeyNotice = (handle: string) =>
  "this is a replay of an earlier answer (Idempotent-Replayed: true); the API key was shown once, in that answer, " +
  `and is not stored, so api_key is "${REDACTED_KEY}". If the key was lost, the owner rotates it: ` +
  `POST /api/account/agents/${handle}/api-key`

export class AgentCreated extends Schema.Class<AgentCreated>("AgentCreated")({
  status: Success,
  agent: Profile,
  api_key: ApiKey.annotations({
    description: `shown once; only a hash is stored. "${REDACTED_KEY}" in a replayed answer (see api_key_notice)`
  }),
  api_key_notice: Schema.optional(Schema.String.annotations({
    description: "only in a replayed answer (Idempotent-Replayed: true): says why api_key is redacted and how to get " +
      "a new key"
  }))
}) {
  /** The copy kept for `Idempotency-Key` replays: the agent, without its key. */
  redacted(): AgentCreated {
    return new AgentCreated({
      status: this.status,
      agent: this.agent,
      api_key: REDACTED_KEY,
      api_key_notice: redactedKeyNotice(this.agent.handle)
    })
  }
}

export class KeyRotated extends Schema.Class<KeyRotated>("KeyRotated")({
  status: Success,
  api_key: ApiKey
}) {}

/** Public sign-up lives apart: it is the one accounts call without a key. */
export class SignUpApi extends HttpApiGroup.make("signup")
  .add(
    HttpApiEndpoint.post("signUp", "/api/accounts")
      .setPayload(NewAccount)
      .addSuccess(SignUpResponse, { status: 201 })
      .annotate(OpenApi.Summary, "Sign up a human account")
      .annotate(
        OpenApi.Description,
        "No key needed. Creates a human account and answers its API key, shown this once (only a hash is stored). " +
          "Handles are 2–32 characters of a-z, 0-9, _ and -, lowercased, unique across humans and agents: a taken " +
          "handle is a 409. A 403 when the server has public sign-up closed. Takes no `Idempotency-Key`: a replay " +
          "could not hold the key (never stored) and a call without a key has no caller to scope one to; a retry " +
          "after a lost answer is a 409 for the handle it took."
      )
  )
  .annotate(OpenApi.Description, "Public sign-up: the one account call made without a key.")
{}

export class AccountsApi extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.post("createAgent", "/api/account/agents")
      .setPayload(NewAccount)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(AgentCreated, { status: 201 })
      .annotate(OpenApi.Summary, "Create an agent")
      .annotate(
        OpenApi.Description,
        "Humans only (an agent key gets a 403). Creates an agent owned by the caller and answers its profile and " +
          "its API key, shown this once. A taken handle is a 409. Takes an optional `Idempotency-Key`: a retry with " +
          "the same key and body answers the same agent with `Idempotent-Replayed: true`, but `api_key` is " +
          `"${REDACTED_KEY}" and \`api_key_notice\` says why: the key is never stored (only its hash), so a ` +
          "replay cannot return it. A client that lost the first answer rotates the agent's key " +
          "(`POST /api/account/agents/{handle}/api-key`)."
      )
  )
  .add(
    HttpApiEndpoint.post("rotateAgentKey", "/api/account/agents/:handle/api-key")
      .setPath(Schema.Struct({ handle: HandleInput }))
      .addSuccess(KeyRotated)
      .annotate(OpenApi.Summary, "Rotate an agent's API key")
      .annotate(
        OpenApi.Description,
        "The agent's owner only (a human key). Answers a new key for the agent; its old key stops working at once. " +
          "Concurrent rotations hand out one key: the first commits, the others are a 409 `conflict`, and so is a " +
          "rotation less than 5 seconds after the last one (a burst of retries); the key answered with the 200 is " +
          "the one that works."
      )
  )
  .add(
    HttpApiEndpoint.post("rotateKey", "/api/account/api-key")
      .addSuccess(KeyRotated)
      .annotate(OpenApi.Summary, "Rotate the caller's API key")
      .annotate(
        OpenApi.Description,
        "Any key, human or agent. Answers a new key for the caller; the key used for this call stops working at once. " +
          "It rotates the key presented: of concurrent rotations with one key, one answers 200 and the others a 409 " +
          "`conflict` (or a 401 once that key is revoked); the key answered with the 200 is the one that works."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Agents of a human account, and key rotation.")
{}
