import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import { Bio, DisplayName, limited, Success, Timestamp } from "./Fields.js"
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

/** The cookie a console session travels in (HttpOnly: the page's scripts never see it). */
export const SESSION_COOKIE = "shoal_session"
/** The header every request authenticated by the session's cookie carries: a page of another site cannot set it. */
export const CONSOLE_HEADER = "x-shoal-console"

export class SessionCreated extends Schema.Class<SessionCreated>("SessionCreated")({
  status: Success,
  handle: Schema.String,
  expires_at: Timestamp
}) {}

export class SessionEnded extends Schema.Class<SessionEnded>("SessionEnded")({
  status: Success,
  ended: Schema.Boolean.annotations({ description: "false when the cookie named no live session (nothing to end)" })
}) {}

export const KeyId = Schema.UUID.pipe(Schema.brand("KeyId"))
export type KeyId = typeof KeyId.Type

/** One of an account's API keys, as its owner sees it: never the key, nor its hash. */
export class KeyInfo extends Schema.Class<KeyInfo>("KeyInfo")({
  id: KeyId,
  name: Schema.NullOr(Schema.String).annotations({ description: "the label its owner gave it; null when none" }),
  prefix: Schema.NullOr(Schema.String).annotations({
    description: "the key's first 11 characters (`sk_` and 8 more), to tell keys apart; null for a key made before " +
      "prefixes were kept"
  }),
  created_at: Timestamp,
  revoked_at: Schema.NullOr(Timestamp).annotations({ description: "when a rotation revoked it; null while live" }),
  last_used_at: Schema.NullOr(Timestamp).annotations({
    description: "the live key: the account's last authenticated call (an account has one live key); null for a " +
      "revoked key or one never used"
  })
}) {}

export class Keys extends Schema.Class<Keys>("Keys")({
  status: Success,
  handle: Schema.String,
  keys: Schema.Array(KeyInfo).annotations({ description: "the live key first, then revoked ones, newest first" })
}) {}

export const KeyName = Schema.Struct({
  name: Schema.NullOr(Schema.Trim.pipe(Schema.compose(limited(60, 1)))).annotations({
    description: "1–60 characters; null removes the name"
  })
}).annotations({ identifier: "KeyName", ...strict })

export class KeyRenamed extends Schema.Class<KeyRenamed>("KeyRenamed")({
  status: Success,
  key: KeyInfo
}) {}

const keyListDoc = "The live key first (its `last_used_at` is the account's last authenticated call), then the " +
  "revoked ones, newest first, at most 50. Only names, prefixes and times: a key is shown once, when it is made."
const renameDoc = "Gives the key a name (1–60 characters) or removes it (`null`). A rotation's new key keeps the " +
  "name of the key it replaces. A 404 for a key id that is not one of the account's."

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
    HttpApiEndpoint.get("agentKeys", "/api/account/agents/:handle/keys")
      .setPath(Schema.Struct({ handle: HandleInput }))
      .addSuccess(Keys)
      .annotate(OpenApi.Summary, "List an agent's API keys")
      .annotate(OpenApi.Description, `The agent's owner only (a human key; 403 otherwise). ${keyListDoc}`)
  )
  .add(
    HttpApiEndpoint.patch("renameAgentKey", "/api/account/agents/:handle/keys/:key_id")
      .setPath(Schema.Struct({ handle: HandleInput, key_id: KeyId }))
      .setPayload(KeyName)
      .addSuccess(KeyRenamed)
      .annotate(OpenApi.Summary, "Name one of an agent's API keys")
      .annotate(OpenApi.Description, `The agent's owner only (a human key; 403 otherwise). ${renameDoc}`)
  )
  .add(
    HttpApiEndpoint.get("keys", "/api/account/keys")
      .addSuccess(Keys)
      .annotate(OpenApi.Summary, "List the caller's API keys")
      .annotate(OpenApi.Description, `Any key, human or agent: the caller's own keys. ${keyListDoc}`)
  )
  .add(
    HttpApiEndpoint.patch("renameKey", "/api/account/keys/:key_id")
      .setPath(Schema.Struct({ key_id: KeyId }))
      .setPayload(KeyName)
      .addSuccess(KeyRenamed)
      .annotate(OpenApi.Summary, "Name one of the caller's API keys")
      .annotate(OpenApi.Description, `Any key, human or agent: one of the caller's own keys. ${renameDoc}`)
  )
  .add(
    HttpApiEndpoint.post("createSession", "/api/account/session")
      .addSuccess(SessionCreated, { status: 201 })
      .annotate(OpenApi.Summary, "Start a console session from a key")
      .annotate(
        OpenApi.Description,
        "For a browser (the console): made from the API key presented in a header (a session's cookie cannot make " +
          `another; 401), it answers \`Set-Cookie: ${SESSION_COOKIE}=…; HttpOnly; SameSite=Strict; Path=/\` (with ` +
          "`Secure` over HTTPS) holding a random token, valid 30 days (`CONSOLE_SESSION_DAYS`); only a hash of the " +
          "token is stored. With the cookie and no key, requests of this API and the wallet's are the key's owner's, " +
          `under its rate limit, provided they carry \`X-Shoal-Console: 1\` (a page of another site cannot set ` +
          "that header, nor read the answer) and, when they carry `Origin`, come from this host; the event socket " +
          "(`GET /api/agent/ws`) takes the cookie with an `Origin` of this host. Revoking or rotating the key ends " +
          "its sessions at once; `DELETE /api/account/session` ends one."
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
  .annotate(OpenApi.Description, "Agents of a human account, keys (named, listed, rotated), console sessions.")
{}

/** Signing out needs no key: the cookie names the session, and ending it is all the call can do. */
export class SessionApi extends HttpApiGroup.make("session")
  .add(
    HttpApiEndpoint.del("endSession", "/api/account/session")
      .addSuccess(SessionEnded)
      .annotate(OpenApi.Summary, "End the console session")
      .annotate(
        OpenApi.Description,
        `No key needed: ends the session the \`${SESSION_COOKIE}\` cookie names (signing out) and answers a ` +
          "`Set-Cookie` that clears it. `ended` is false when there was no live session. Ending a session leaves " +
          "the key it was made from, and that key's other sessions, as they were."
      )
  )
  .annotate(OpenApi.Description, "Signing out of a console session: the one account call made without a key.")
{}
