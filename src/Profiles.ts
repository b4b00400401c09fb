import type { Ids } from "@shoal/domain"
import type { Auth, Profiles as Api } from "@shoal/domain"
import { ErrorDetails, Errors, Users } from "@shoal/domain"
import { Clock, Config, Duration, Effect, Option } from "effect"
import { Heartbeat } from "./Auth/Heartbeat.js"
import * as Invalidating from "./Cache/Invalidating.js"
import * as GroupCommit from "./Database/GroupCommit.js"
import { Pglite } from "./Database/PgliteClient.js"
import { ProfileChanges } from "./Profiles/Changes.js"
import { ProfilesRepo, toProfile, toProfileJson, toUser, toUserJson, type UserRow } from "./Profiles/Repo.js"
import { noUserWithHandle } from "./Projects/PeopleRepo.js"
import { Outbox } from "./Realtime/Outbox.js"
import { UrlGuard } from "./Realtime/Webhooks/UrlGuard.js"
import { BalanceChanges } from "./Wallet/BalanceChanges.js"

/** Profiles and the `me` view: reads cached briefly (writes on this node invalidate), as `/me` is a hot path. */
export class Profiles extends Effect.Service<Profiles>()("Profiles", {
  scoped: Effect.gen(function*() {
    const repo = yield* ProfilesRepo
    const guard = yield* UrlGuard
    const heartbeat = yield* Heartbeat
    const changes = yield* ProfileChanges
    const outbox = yield* Outbox
    // profile updates are group-committed by default with the embedded database only (bench/README.md, "writes")
    const embedded = Option.isSome(yield* Effect.serviceOption(Pglite))
    const writes = yield* GroupCommit.make({
      enabled: yield* Effect.orDie(Config.boolean("GROUP_COMMIT").pipe(Config.withDefault(embedded))),
      maxBatch: yield* Effect.orDie(Config.integer("GROUP_COMMIT_MAX_BATCH").pipe(Config.withDefault(64))),
      gather: outbox.gathered
    })
    const balances = yield* BalanceChanges
    const rows = yield* Invalidating.make({
      capacity: 100_000,
      timeToLive: () => Duration.seconds(2),
      lookup: (id: Ids.UserId) => Effect.orDie(repo.findById(id))
    })

    const found = (row: Option.Option<UserRow>) =>
      Effect.orElseFail(row, () => new Errors.NotFound({ message: "no such user" }))
    // a cached row is dropped once the user's Gems moved (svc_gems, gems_escrow come from the ledger)
    const row = (id: Ids.UserId) =>
      Effect.flatMap(balances.take(id) ? Effect.zipRight(rows.invalidate(id), rows.get(id)) : rows.get(id), found)

    /** Straight from the database in the caller's fiber, so it sees (and stays inside) an open transaction. */
    const fresh = (userId: Ids.UserId) => Effect.flatMap(Effect.orDie(repo.findById(userId)), found)

    const profile = Effect.fn("Profiles.profile")((userId: Ids.UserId) => Effect.map(row(userId), toProfile))

    const update = Effect.fn("Profiles.update")(function*(caller: Auth.Principal, patch: Api.ProfilePatch) {
      if (patch.webhook_url) {
        const verdict = yield* guard.check(patch.webhook_url)
        if (!verdict.ok) {
          return yield* new Errors.InvalidRequest({
            message: `webhook_url refused: ${verdict.reason}`,
            details: ErrorDetails.fieldDetails("webhook_url", verdict.reason)
          })
        }
      }
      const identitySet: Record<string, string> = {}
      const identityRemove: Array<string> = []
      for (const [k, v] of Object.entries(patch.identity ?? {})) {
        if (v === null) identityRemove.push(k)
        else if (v !== undefined) identitySet[k] = v
      }
      const changed = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined)
      const now = yield* Clock.currentTimeMillis
      // acknowledged once its (shared) transaction committed, with its event in the same transaction
      const updated = yield* repo.update(caller.id, {
        display_name: patch.display_name ?? patch.name,
        bio: patch.bio,
        profile_photo_url: patch.profile_photo_url,
        webhook_url: patch.webhook_url,
        identitySet,
        identityRemove
      }, now).pipe(
        Effect.tap(() => outbox.emit([caller.id], "profile.updated", { handle: caller.handle, fields: changed })),
        writes.submit,
        Effect.orDie
      )
      yield* rows.invalidate(caller.id)
      yield* changes.publish(caller.id, caller.handle)
      const saved = yield* found(updated)
      // the wire form: a PATCH answers with the whole profile and user, and schema encoding them cost more than
      // the rest of the request (as for /me)
      return {
        profile: toProfileJson(saved),
        user: toUserJson(saved, heartbeat.lastSeen(caller.id))
      }
    })

    const byHandle = Effect.fn("Profiles.byHandle")(function*(handle: string) {
      const found = yield* Effect.orDie(repo.findByHandle(handle))
      if (Option.isNone(found)) return yield* noUserWithHandle(handle)
      const { webhook_url: _, ...profile } = toProfile(found.value)
      return profile
    })

    const search = Effect.fn("Profiles.search")((q: string) =>
      Effect.map(Effect.orDie(repo.search(q.trim())), (found) => found.map((u) => new Users.UserSummary(u)))
    )

    /** `me` in its wire form (see toUserJson). */
    const meJson = (userId: Ids.UserId) => Effect.map(row(userId), (r) => toUserJson(r, heartbeat.lastSeen(userId)))

    const freshProfile = (userId: Ids.UserId) => Effect.map(fresh(userId), toProfile)
    const freshMe = (userId: Ids.UserId) => Effect.map(fresh(userId), (r) => toUser(r, heartbeat.lastSeen(userId)))

    return { profile, meJson, freshProfile, freshMe, update, byHandle, search } as const
  }),
  dependencies: [ProfilesRepo.Default, UrlGuard.Default]
}) {}
