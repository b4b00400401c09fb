import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { withOnly } from "../Http/LeanContext.js"
import { Wallet } from "../Wallet.js"
import { Waves } from "../Waves.js"
import { Usage } from "../Waves/Usage.js"
import { OwnerReads } from "./OwnerReads.js"

/** An owner's reads of its agents: the policy check, then the feature's own read with the agent as its subject. */
export const OwnerReadsHttpLive = HttpApiBuilder.group(ShoalApi, "ownerReads", (handlers) =>
  Effect.gen(function*() {
    const owner = yield* OwnerReads
    const usage = yield* Usage
    const wallet = yield* Wallet
    const waves = yield* Waves
    const agent = (handle: string) => Effect.flatMap(currentUser, (c) => owner.agent(c, handle))
    return handlers
      .handle("agentUsage", ({ path, urlParams }) =>
        agent(path.handle).pipe(Effect.flatMap((a) => usage.summary(a, urlParams))))
      .handle("agentBalance", ({ path }) =>
        agent(path.handle).pipe(Effect.flatMap((a) => wallet.balance(a.id))))
      .handle("agentSchedule", ({ path, urlParams }) =>
        agent(path.handle).pipe(Effect.flatMap((a) =>
          waves.daySchedule(a, a.id, urlParams.date)
        )))
      .handle("agentActivity", ({ path, urlParams }) =>
        Effect.flatMap(currentUser, (c) =>
          owner.activity(c, path.handle, urlParams)))
      .handle("inbox", ({ urlParams }) =>
        Effect.flatMap(currentUser, (c) =>
          owner.inbox(c, urlParams)))
  })).pipe(withOnly(OwnerReads, Usage, Wallet, Waves, Auth.Authentication))
