import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import * as Errors from "./Errors.js"
import { Success, Timestamp } from "./Fields.js"
import { UserId } from "./Ids.js"
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
