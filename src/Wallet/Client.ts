import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { RpcClient, RpcSerialization, RpcServer } from "@effect/rpc"
import { RpcClientError } from "@effect/rpc/RpcClientError"
import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Errors, WalletRpc } from "@shoal/domain"
import { Cause, Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import { DependencyUnavailable } from "../Http/DependencyUnavailable.js"
import { errorResponse } from "../Http/ErrorEnvelope.js"
import { BalanceChanges } from "./BalanceChanges.js"
import { Bounties } from "./Bounties.js"

/** The header that carries `WALLET_RPC_SECRET`: the wallet's `/rpc` moves Gems, so only the agent API may call it. */
export const RPC_SECRET_HEADER = "x-wallet-rpc-secret"

/**
 * The wallet as the agent API sees it. `local`: the calls run in the caller's transaction (one process), so a task
 * change and its Gems commit together. Remote: each call is the wallet process's own transaction, so callers make
 * deciding calls (fund, approve, reject) before their own write and following ones (complete, burn) after it.
 */
export class WalletClient extends Context.Tag("Wallet/Client")<WalletClient, {
  readonly local: boolean
  readonly fund: (task: Ids.TaskId, funder: Ids.UserId, amount: number) => Effect.Effect<void, Errors.Conflict>
  readonly toPending: (task: Ids.TaskId, assignee: Ids.UserId) => Effect.Effect<void>
  readonly approve: (task: Ids.TaskId, user: Ids.UserId, note?: string) => Effect.Effect<number, Errors.Conflict>
  readonly reject: (task: Ids.TaskId, user: Ids.UserId, note?: string) => Effect.Effect<number, Errors.Conflict>
  readonly burn: (task: Ids.TaskId, user: Ids.UserId) => Effect.Effect<void>
}>() {}

/** Over HTTP to a wallet running alone (`WALLET_RPC_URL`, with `WALLET_RPC_SECRET`). */
export const layerRemote = (url: string, secret: Redacted.Redacted) =>
  Layer.scoped(
    WalletClient,
    Effect.gen(function*() {
      const client = yield* RpcClient.make(WalletRpc.WalletRpcs)
      // a transport failure or a silent wallet is an outage, not the request's fault: a defect the error envelope
      // answers 503 with Retry-After; a retry is safe (every call acts only from the bounty state it finds)
      const call = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, Exclude<E, RpcClientError>> =>
        effect.pipe(
          Effect.timeout("15 seconds"),
          Effect.catchIf(
            (e) => e instanceof RpcClientError || Cause.isTimeoutException(e),
            (e) =>
              Effect.die(
                new DependencyUnavailable({
                  dependency: "wallet",
                  reason: Cause.isTimeoutException(e) ? "timeout" : "unreachable",
                  cause: e
                })
              )
          )
        ) as Effect.Effect<A, Exclude<E, RpcClientError>>
      return {
        local: false,
        fund: (task, funder, amount) => call(client.BountyFund({ task_id: task, funder_id: funder, amount })),
        toPending: (task, assignee) => call(client.BountyComplete({ task_id: task, assignee_id: assignee })),
        approve: (task, user, note) => call(client.BountyApprove({ task_id: task, user_id: user, note })),
        reject: (task, user, note) => call(client.BountyReject({ task_id: task, user_id: user, note })),
        burn: (task, user) => call(client.BountyBurn({ task_id: task, user_id: user }))
      }
    })
  ).pipe(
    Layer.provide(
      RpcClient.layerProtocolHttp({
        url,
        transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader(RPC_SECRET_HEADER, Redacted.value(secret)))
      }).pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(RpcSerialization.layerJson))
    )
  )

/** Local unless `WALLET_RPC_URL` names a wallet in another process. */
export const layer = Layer.unwrapEffect(Effect.gen(function*() {
  const url = yield* Config.option(Config.string("WALLET_RPC_URL"))
  // in process: the Bounties service itself, inside the caller's transaction
  if (Option.isNone(url)) return Layer.effect(WalletClient, Effect.map(Bounties, (b) => ({ ...b, local: true })))
  const secret = yield* Config.redacted("WALLET_RPC_SECRET")
  return layerRemote(url.value, secret)
}))

/** The wallet's side: each request one transaction of its own. */
export const handlers = WalletRpc.WalletRpcs.toLayer(Effect.gen(function*() {
  const bounties = yield* Bounties
  const sql = yield* SqlClient.SqlClient
  const { tracked } = yield* BalanceChanges
  const tx = <A, E>(effect: Effect.Effect<A, E>) =>
    effect.pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), tracked) as Effect.Effect<
      A,
      Exclude<E, { _tag: "SqlError" }>
    >
  return {
    BountyFund: ({ amount, funder_id, task_id }) => tx(bounties.fund(task_id, funder_id, amount)),
    BountyComplete: ({ assignee_id, task_id }) => tx(bounties.toPending(task_id, assignee_id)),
    BountyApprove: ({ note, task_id, user_id }) => tx(bounties.approve(task_id, user_id, note)),
    BountyReject: ({ note, task_id, user_id }) => tx(bounties.reject(task_id, user_id, note)),
    BountyBurn: ({ task_id, user_id }) => tx(bounties.burn(task_id, user_id))
  }
}))

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/**
 * `POST /rpc` on the wallet's port, when `WALLET_RPC_SECRET` is set (otherwise there is no such route): requests
 * without the secret are a 404, as if it did not exist.
 */
export const RpcRouteLive = Layer.unwrapEffect(Effect.gen(function*() {
  const secret = yield* Config.option(Config.redacted("WALLET_RPC_SECRET"))
  if (Option.isNone(secret)) return Layer.empty
  const expected = Redacted.value(secret.value)
  return HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const app = yield* RpcServer.toHttpApp(WalletRpc.WalletRpcs, { disableTracing: true })
      yield* router.post(
        "/rpc",
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) =>
          sameSecret(req.headers[RPC_SECRET_HEADER] ?? "", expected)
            ? app
            : errorResponse(404, "not_found", "no such route"))
      )
    })
  ).pipe(Layer.provide(handlers), Layer.provide(RpcSerialization.layerJson))
}))
