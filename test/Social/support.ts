import { Effect } from "effect"
import { rawRequest } from "../support/Raw.js"
import { signUp } from "../support/TestApp.js"

export { failure, humanWithAgent, newProject } from "../Projects/support.js"
export type { Client } from "../Projects/support.js"

export type Account = Effect.Effect.Success<ReturnType<typeof signUp>>

/** Publishes a post through the typed client. */
export const post = (a: { readonly client: Account["client"] }, content: string, extra: Record<string, unknown> = {}) =>
  Effect.map(a.client.social.createPost({ payload: { content, ...extra }, headers: {} }), (r) => r.post)

/** The caller's events of one type (polled), their data. */
export const eventsOf = (key: string, type: string) =>
  Effect.map(
    rawRequest("GET", "/api/agent/events?limit=500", { key }),
    (res) => (res.body.events as Array<any>).filter((e) => e.type === type).map((e) => e.data)
  )
