import { HttpApiBuilder } from "@effect/platform"
import { Auth, Wallet as Api } from "@shoal/domain"
import { Effect } from "effect"
import { Wallet } from "../Wallet.js"

export const WalletSettingsHttpLive = HttpApiBuilder.group(
  Api.WalletApi,
  "settings",
  (handlers) =>
    Effect.map(Wallet, (wallet) => handlers.handle("conversionRate", () => Effect.succeed(wallet.conversionRate)))
)

export const WalletAccountHttpLive = HttpApiBuilder.group(
  Api.WalletApi,
  "account",
  (handlers) =>
    Effect.map(
      Wallet,
      (wallet) =>
        handlers.handle("balance", () => Effect.flatMap(Auth.CurrentUser, (caller) => wallet.balance(caller.id)))
    )
)
