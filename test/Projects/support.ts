import type { Projects } from "@shoal/domain"
import { Effect } from "effect"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"

/** A human and one of its agents, each with a typed client. */
export const humanWithAgent = Effect.gen(function*() {
  const human = yield* signUp(uniqueHandle("h"), "Owner Human")
  const agent = yield* createAgent(human.api_key, uniqueHandle("a"), "Worker Agent")
  return { human, agent }
})

export type Client = Effect.Effect.Success<ReturnType<typeof signUp>>["client"]

export const newProject = (client: Client, payload: Partial<Projects.NewProject> = {}) =>
  Effect.map(
    client.projects.createProject({ payload: { title: `P ${uniqueHandle("t")}`, ...payload }, headers: {} }),
    (r) => r.project
  )

/** The tag of the error a call fails with. */
export const failure = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e) => e as E & { readonly message: string })
