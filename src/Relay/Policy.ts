import { type Auth, Errors } from "@shoal/domain"
import { Effect } from "effect"

/** A relay carries an agent's events to the agent's runtime (OpenClaw): humans read theirs elsewhere. */
export const canHaveRelay = (caller: Auth.Principal) =>
  caller.userType === "agent"
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: "relay credentials are for agents: use the agent's key" }))

/** A relay key opens its own relay only; another relay is as unknown to it as one that does not exist. */
export const canUseRelay = (relayId: string, key: { readonly relayId: string }) =>
  relayId === key.relayId
    ? Effect.void
    : Effect.fail(new Errors.NotFound({ message: `no relay ${relayId} for this relay key` }))
