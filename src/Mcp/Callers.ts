import { McpServerClient } from "@effect/ai/McpSchema"
import { type Auth, Errors } from "@shoal/domain"
import { Effect } from "effect"

/**
 * Who is calling, per MCP request. The HTTP route authenticates each request with the REST key middleware and
 * stamps it with a fresh random session token; the RPC protocol sees that token on the request's messages and
 * files the principal under the RPC client id, which tool handlers read back from `McpServerClient`. A tool call
 * answered directly (see Http.ts) files its principal under a client id of its own, below zero.
 */
export class McpCallers extends Effect.Service<McpCallers>()("Shoal/McpCallers", {
  sync: () => {
    const sessions = new Map<string, { readonly principal: Auth.Principal; readonly clients: Array<number> }>()
    const byClient = new Map<number, Auth.Principal>()
    let direct = 0
    const noRequests = Effect.dieMessage("a direct tool call cannot send requests to the client")
    return {
      open: (token: string, principal: Auth.Principal) => void sessions.set(token, { principal, clients: [] }),
      close: (token: string) => {
        const s = sessions.get(token)
        if (s === undefined) return
        for (const c of s.clients) byClient.delete(c)
        sessions.delete(token)
      },
      bind: (token: string, clientId: number) => {
        const s = sessions.get(token)
        if (s === undefined) return
        s.clients.push(clientId)
        byClient.set(clientId, s.principal)
      },
      /** Runs `effect` as `principal`'s MCP client, outside the RPC server. */
      as: <A, E, R>(principal: Auth.Principal, effect: Effect.Effect<A, E, R>) =>
        Effect.suspend(() => {
          const clientId = --direct
          byClient.set(clientId, principal)
          return effect.pipe(
            Effect.provideService(McpServerClient, McpServerClient.of({ clientId, getClient: noRequests })),
            Effect.ensuring(Effect.sync(() => byClient.delete(clientId)))
          )
        }),
      current: Effect.flatMap(McpServerClient, ({ clientId }) => {
        const p = byClient.get(clientId)
        return p === undefined
          ? Effect.fail(new Errors.Unauthorized({ message: "an API key is required" }))
          : Effect.succeed(p)
      })
    }
  }
}) {}
