import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { ShoalApi } from "@shoal/domain"
import type { Effect } from "effect"

export * as EventStream from "./EventStream.js"

export interface ClientOptions {
  /** e.g. http://127.0.0.1:8080; omit when the provided HttpClient already prefixes URLs */
  readonly baseUrl?: string | undefined
  readonly apiKey?: string | undefined
  /** how the key is sent: `Authorization: Bearer` (default) or `X-API-Key` */
  readonly keyHeader?: "bearer" | "x-api-key" | undefined
}

/** The typed Shoal client, derived from the same HttpApi definition as the server. Needs an HttpClient. */
export const make = (options: ClientOptions = {}) =>
  HttpApiClient.make(ShoalApi, {
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    transformClient: (client) => {
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

export type Client = Effect.Effect.Success<ReturnType<typeof make>>
