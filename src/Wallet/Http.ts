import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, Wallet as Api } from "@shoal/domain"
import { Effect } from "effect"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { Wallet } from "../Wallet.js"
import { AccountActors } from "./AccountActors.js"
import { BalanceChanges } from "./BalanceChanges.js"

export const WalletSettingsHttpLive = HttpApiBuilder.group(
  Api.WalletApi,
  "settings",
  (handlers) =>
    Effect.map(Wallet, (wallet) => handlers.handle("conversionRate", () => Effect.succeed(wallet.conversionRate)))
).pipe(withOnly(Wallet))

const caller = Auth.CurrentUser

/** Movements out of the caller's balance (transfer, redeem) queue behind the caller's account actor. */
export const WalletAccountHttpLive = HttpApiBuilder.group(
  Api.WalletApi,
  "account",
  (handlers) =>
    Effect.gen(function*() {
      const wallet = yield* Wallet
      const actors = yield* AccountActors
      const { tracked } = yield* BalanceChanges
      const serialized = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.flatMap(caller, (c) => actors.serialize(c.id, tracked(effect)))
      return handlers
        .handle("balance", () => Effect.flatMap(caller, (c) => wallet.balance(c.id)))
        .handle("transactions", ({ urlParams }) => Effect.flatMap(caller, (c) => wallet.transactions(c, urlParams)))
        .handle("award", (request) =>
          tracked(
            idempotent("award", Api.Awarded, () => Effect.flatMap(caller, (c) => wallet.award(c, request.payload)))(
              request
            )
          ))
        .handle("transfer", (request) =>
          serialized(
            idempotent("transfer", Api.Transferred, () =>
              Effect.flatMap(caller, (c) => wallet.transfer(c, request.payload)))(request)
          ))
        .handle("redeem", (request) =>
          serialized(
            idempotent("redeem", Api.Redeemed, () => Effect.flatMap(caller, (c) => wallet.redeem(c, request.payload)))(
              request
            )
          ))
    })
).pipe(withOnly(Wallet, AccountActors, BalanceChanges, Idempotency, Auth.Authentication))
