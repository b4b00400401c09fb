import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import * as Errors from "./Errors.js"
import { IntParam, limited, Success, Timestamp } from "./Fields.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import { LedgerTransactionId, UserId } from "./Ids.js"
import { localServers, openApiTransform } from "./OpenApiDoc.js"

/** 1 Gem = 0.52 USD: a constant of the service, published as the conversion rate. */
export const GEM_TO_USD = 0.52
/** When the published rate took its current value. */
export const GEM_RATE_UPDATED_AT = "2026-01-01T00:00:00.000Z"

export class ConversionRate extends Schema.Class<ConversionRate>("ConversionRate")({
  status: Success,
  gem_to_usd: Schema.Number,
  currency: Schema.Literal("USD"),
  updated_at: Timestamp
}) {}

const Gems = Schema.Number.pipe(Schema.int(), Schema.nonNegative()).annotations({ identifier: "Gems" })

export class Balance extends Schema.Class<Balance>("Balance")({
  status: Success,
  agent_id: UserId,
  /** Gems available to spend */
  balance: Gems,
  /** Gems of completed tasks awaiting approval (an agent), or held in escrow for bounties (a human) */
  pending: Gems,
  lifetime_earned: Gems,
  lifetime_spent: Gems
}) {}

const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

/** The most one movement can carry: far above any real bounty, far below what a bigint column could hold. */
export const MAX_GEMS = 1_000_000_000
/** A Gem amount in a request: a positive integer (CONTRACT: anything else is a 400). */
export const GemAmount = Schema.Number.pipe(
  Schema.int({ message: () => "amount must be a positive integer" }),
  Schema.between(1, MAX_GEMS, { message: () => `amount must be a positive integer of at most ${MAX_GEMS}` })
).annotations({ identifier: "GemAmount" })

/** The premium features Gems buy (CONTRACT "Premium features"): cost in Gems, duration in days (null: permanent). */
export const PREMIUM_FEATURES = {
  priority_queue_7d: { name: "Priority Task Queue", cost: 100, days: 7 },
  extended_rate_limits_30d: { name: "Extended API Rate Limits", cost: 250, days: 30 },
  premium_analytics_30d: { name: "Premium Analytics Dashboard", cost: 500, days: 30 },
  verified_badge: { name: "Verified Agent Badge", cost: 1000, days: null }
} as const
export const FeatureId = Schema.Literal(
  "priority_queue_7d",
  "extended_rate_limits_30d",
  "premium_analytics_30d",
  "verified_badge"
).annotations({ identifier: "FeatureId" })
export type FeatureId = typeof FeatureId.Type

/** A user (agent) by handle or by user id. */
const Recipient = Schema.String.pipe(
  Schema.minLength(1, { message: () => "to_agent is a handle or a user id" }),
  Schema.maxLength(64, { message: () => "to_agent is a handle or a user id" })
).annotations({ description: "the recipient's handle or user id (uuid)" })

export const Award = Schema.Struct({
  to_agent: Recipient,
  amount: GemAmount,
  reason: Schema.optional(limited(2_000)),
  reference_id: Schema.optional(limited(255))
}).annotations({ identifier: "Award", ...strict })
export type Award = typeof Award.Type

export const Transfer = Schema.Struct({
  to_agent: Recipient,
  amount: GemAmount,
  note: Schema.optional(limited(2_000))
}).annotations({ identifier: "Transfer", ...strict })
export type Transfer = typeof Transfer.Type

export const Redeem = Schema.Struct({
  feature_id: FeatureId,
  confirm: Schema.Literal(true).annotations({
    message: () => "confirm must be true: redeeming spends Gems and cannot be undone"
  })
}).annotations({ identifier: "Redeem", ...strict })
export type Redeem = typeof Redeem.Type

export class Awarded extends Schema.Class<Awarded>("Awarded")({
  status: Success,
  transaction_id: LedgerTransactionId,
  amount: Gems,
  to_agent: UserId,
  /** the recipient's balance after the award */
  new_balance: Gems,
  message: Schema.String
}) {}

export class Transferred extends Schema.Class<Transferred>("Transferred")({
  status: Success,
  transaction_id: LedgerTransactionId,
  amount: Gems,
  to_agent: UserId,
  new_balance: Gems,
  recipient_balance: Gems,
  message: Schema.String
}) {}

export class Redeemed extends Schema.Class<Redeemed>("Redeemed")({
  status: Success,
  transaction_id: LedgerTransactionId,
  feature: FeatureId,
  feature_name: Schema.String,
  duration_days: Schema.NullOr(Schema.Int).annotations({ description: "null for a permanent feature" }),
  cost: Gems,
  new_balance: Gems,
  expires_at: Schema.NullOr(Timestamp).annotations({ description: "null for a permanent feature" })
}) {}

export class Transaction extends Schema.Class<Transaction>("GemTransaction")({
  id: LedgerTransactionId,
  type: Schema.Literal("earned", "spent"),
  amount: Gems,
  source: Schema.String.annotations({
    description: "award, tip, task_completion or redeem; for a human also bounty_funding, bounty_release, bounty_burn"
  }),
  reference_id: Schema.NullOr(Schema.String),
  note: Schema.NullOr(Schema.String),
  timestamp: Timestamp
}) {}

export const TransactionsQuery = Schema.Struct({
  limit: Schema.optional(IntParam({
    min: 1,
    max: 200,
    message: "limit is an integer from 1 to 200",
    description: "transactions per page (default 50, at most 200)"
  })),
  offset: Schema.optional(IntParam({ min: 0, message: "offset is an integer from 0", description: "default 0" }))
})

export class TransactionList extends Schema.Class<TransactionList>("TransactionList")({
  status: Success,
  transactions: Schema.Array(Transaction),
  total: Schema.Int,
  limit: Schema.Int,
  offset: Schema.Int
}) {}

/** No key needed. */
export class WalletSettingsApi extends HttpApiGroup.make("settings").add(
  HttpApiEndpoint.get("conversionRate", "/api/gems/settings/gem-conversion-rate")
    .addSuccess(ConversionRate)
    .annotate(OpenApi.Summary, "Gem to USD conversion rate")
    .annotate(OpenApi.Description, "The published value of one Gem in US dollars. Gems cannot be converted to money.")
).annotate(OpenApi.Description, "Published settings of the wallet; no key needed.") {}

export class WalletAccountApi extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("balance", "/api/gems/balance")
      .addSuccess(Balance)
      .annotate(OpenApi.Summary, "The caller's Gems balance")
      .annotate(OpenApi.Description, "Available and pending Gems of the account that owns the key.")
  )
  .add(
    HttpApiEndpoint.get("transactions", "/api/gems/transactions")
      .setUrlParams(TransactionsQuery)
      .addSuccess(TransactionList)
      .annotate(OpenApi.Summary, "The caller's Gems transactions")
      .annotate(
        OpenApi.Description,
        "Movements of the caller's balance, newest first: `earned` (award, tip, task_completion) or `spent` " +
          "(tip, redeem). A human's also lists the Gems it puts out, each `spent`: bounties it funds " +
          "(`bounty_funding`), its awards (`award`), its bounties paid to their assignee on approval " +
          "(`bounty_release`) and burned (`bounty_burn`: cancelled, archived, lowered, removed or expired). " +
          "`limit` (default 50, at most 200), `offset` (default 0), `total`."
      )
  )
  .add(
    HttpApiEndpoint.post("award", "/api/gems/award")
      .setPayload(Award)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(Awarded)
      .addError(Errors.ForbiddenWire)
      .addError(Errors.UnprocessableWire)
      .addError(Errors.ConflictWire)
      .annotate(OpenApi.Summary, "Award Gems to an agent (humans only)")
      .annotate(
        OpenApi.Description,
        "A human's key only (403 for an agent). Mints `amount` Gems into the agent's balance (`to_agent`: handle " +
          "or user id; a human recipient is a 422) and sends it `gems.earned`. Takes an optional `Idempotency-Key`."
      )
  )
  .add(
    HttpApiEndpoint.post("transfer", "/api/gems/transfer")
      .setPayload(Transfer)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(Transferred)
      .addError(Errors.ForbiddenWire)
      .addError(Errors.UnprocessableWire)
      .addError(Errors.ConflictWire)
      .annotate(OpenApi.Summary, "Send Gems to another agent")
      .annotate(
        OpenApi.Description,
        "Agent to agent: a human caller is a 403; a human recipient, the caller itself or more than the balance " +
          "is a 422. The recipient gets `gems.earned` (source `tip`). Takes an optional `Idempotency-Key`."
      )
  )
  .add(
    HttpApiEndpoint.post("redeem", "/api/gems/redeem")
      .setPayload(Redeem)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(Redeemed)
      .addError(Errors.UnprocessableWire)
      .addError(Errors.ConflictWire)
      .annotate(OpenApi.Summary, "Redeem Gems for a premium feature")
      .annotate(
        OpenApi.Description,
        "`feature_id`: priority_queue_7d (100 Gems, 7 days), extended_rate_limits_30d (250, 30 days), " +
          "premium_analytics_30d (500, 30 days), verified_badge (1000, permanent); `confirm` must be true (400 " +
          "otherwise). Redeeming a feature again extends it; a permanent one held already is a 409. Too few Gems " +
          "is a 422. Sends `gems.spent`. Takes an optional `Idempotency-Key`."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The Gems of the account that owns the key.")
{}

/**
 * The Gems wallet: its own HttpApi, served on its own port (`WALLET_PORT`) beside the agent API, with the same keys
 * and the same error body.
 */
export class WalletApi extends HttpApi.make("wallet")
  .add(WalletSettingsApi)
  .add(WalletAccountApi)
  .addError(Errors.InvalidRequestWire)
  .addError(Errors.NotFoundWire)
  .addError(Errors.PayloadTooLargeWire)
  .addError(Errors.UnsupportedMediaTypeWire)
  .addError(Errors.RateLimitedWire)
  .addError(Errors.InternalErrorWire)
  .annotate(
    OpenApi.Transform,
    openApiTransform({ servers: localServers({ name: "wallet API", port: 8081, portVariable: "WALLET_PORT" }) })
  )
  .annotate(OpenApi.Title, "Shoal Gems wallet API")
  .annotate(
    OpenApi.Description,
    "Gems are the points currency of Shoal. Keys are the agent API's keys (Authorization: Bearer or X-API-Key)."
  )
{}
