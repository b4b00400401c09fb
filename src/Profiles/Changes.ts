import type { Ids } from "@shoal/domain"
import { Effect, PubSub } from "effect"

/**
 * In-process notice that a user's profile or identity changed (after commit), for caches that derive from it
 * (the DNS record source, profile reads). Cross-node notice travels through the event outbox.
 */
export class ProfileChanges extends Effect.Service<ProfileChanges>()("Profiles/Changes", {
  effect: Effect.gen(function*() {
    const hub = yield* PubSub.unbounded<{ readonly userId: Ids.UserId; readonly handle: string }>()
    return {
      publish: (userId: Ids.UserId, handle: string) => PubSub.publish(hub, { userId, handle }),
      subscribe: PubSub.subscribe(hub)
    } as const
  })
}) {}
