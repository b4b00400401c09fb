import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { ShoalApi, Wallet } from "@shoal/domain"
import type { Effect } from "effect"

export * as EventStream from "./EventStream.js"

export interface ClientOptions {
  /** e.g. http://127.0.0.1:8080; omit when the provided HttpClient already prefixes URLs */
  readonly baseUrl?: string | undefined
  readonly apiKey?: string | undefined
  /** how the key is sent: `Authorization: Bearer` (default) or `X-API-Key` */
  readonly keyHeader?: "bearer" | "x-api-key" | undefined
}

const clientOptions = (options: ClientOptions) => ({
  ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
  transformClient: (client: HttpClient.HttpClient) => {
    const key = options.apiKey
    if (key === undefined) return client
    return HttpClient.mapRequest(
      client,
      options.keyHeader === "x-api-key"
        ? HttpClientRequest.setHeader("x-api-key", key)
        : HttpClientRequest.bearerToken(key)
    )
  }
})

/** The typed client of the agent API (`{base_url}`), derived from the server's own HttpApi. Needs an HttpClient. */
export const make = (options: ClientOptions = {}) => HttpApiClient.make(ShoalApi, clientOptions(options))

export type Client = Effect.Effect.Success<ReturnType<typeof make>>

/** The typed client of the Gems wallet API (`{wallet_url}`, its own port); the same keys. Needs an HttpClient. */
export const makeWallet = (options: ClientOptions = {}) => HttpApiClient.make(Wallet.WalletApi, clientOptions(options))

export type WalletClient = Effect.Effect.Success<ReturnType<typeof makeWallet>>
