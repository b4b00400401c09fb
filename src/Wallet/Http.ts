import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, Wallet as Api } from "@shoal/domain"
import { Effect, type Schema } from "effect"
import { currentUser } from "../Auth/Caller.js"
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

const caller = currentUser

type Op<P, A, E> = (caller: Auth.Principal, payload: P) => Effect.Effect<A, E>
type Keyed<P> = { readonly payload: P; readonly headers: { readonly "idempotency-key"?: string | undefined } }

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
      /** The caller's `op` on the request's payload, once per Idempotency-Key. */
      const keyed = <P, A, I, E>(route: string, response: Schema.Schema<A, I>, op: Op<P, A, E>) =>
        idempotent(route, response, (request: Keyed<P>) => Effect.flatMap(caller, (c) => op(c, request.payload)))
      return handlers
        .handle("balance", () => Effect.flatMap(caller, (c) => wallet.balance(c.id)))
        .handle("transactions", ({ urlParams }) => Effect.flatMap(caller, (c) => wallet.transactions(c, urlParams)))
        .handle("award", (request) => tracked(keyed("award", Api.Awarded, wallet.award)(request)))
        .handle("transfer", (request) => serialized(keyed("transfer", Api.Transferred, wallet.transfer)(request)))
        .handle("redeem", (request) => serialized(keyed("redeem", Api.Redeemed, wallet.redeem)(request)))
    })
).pipe(withOnly(Wallet, AccountActors, BalanceChanges, Idempotency, Auth.Authentication))
