import type { Ids } from "@shoal/domain"
import { Array as Arr, Config, Duration, Effect, Layer, Option, Queue } from "effect"
import { KeyCache } from "../Auth/KeyCache.js"
import { KeysRepo } from "../Auth/KeysRepo.js"
import * as Revoked from "../Auth/Revoked.js"
import { Supervisor } from "../Supervisor.js"
import { AgentHub } from "./AgentHub.js"
import { Notifier } from "./Notifier.js"

const CHECK_BATCH = 1_000

/**
 * Key revocations on this node. A rotation's or a console sign-out's notice (src/Auth/Revoked.ts), from whichever
 * node sent it, closes the sockets opened with the revoked keys or session (4401) and uncaches them. A notice lost
 * with a server's LISTEN connection is made up by a periodic check of the keys and sessions this node's sockets hold
 * (KEY_RECHECK_INTERVAL), which also closes those of a session that expired.
 */
export const RevocationsLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const hub = yield* AgentHub
    const cache = yield* KeyCache
    const repo = yield* KeysRepo
    const notifier = yield* Notifier
    const supervisor = yield* Supervisor
    const every = yield* Config.duration("KEY_RECHECK_INTERVAL").pipe(Config.withDefault(Duration.minutes(5)))

    const revoke = (userId: Ids.UserId, hashes: ReadonlyArray<string>) =>
      Effect.zipRight(hub.revoke(userId, hashes), cache.invalidate(hashes))

    const inbox = yield* Queue.unbounded<string>()
    yield* notifier.listen(Revoked.KeysChannel, (payload) => inbox.unsafeOffer(payload))
    // the inbox outlives the loop: a restarted one takes the notices queued meanwhile
    yield* Effect.forkScoped(supervisor.forever(
      "revocations",
      "notices",
      Effect.flatMap(Queue.take(inbox), (payload) =>
        Option.match(Revoked.decode(payload), {
          onNone: () => Effect.logWarning("ignored a malformed key revocation notice", payload),
          onSome: (notice) => revoke(notice.user_id, notice.key_hashes)
        }))
    ))

    const check = Effect.gen(function*() {
      for (const batch of Arr.chunksOf([...hub.keys()], CHECK_BATCH)) {
        const live = yield* repo.live(batch.map(([hash]) => hash))
        for (const [hash, userId] of batch) if (!live.has(hash)) yield* revoke(userId, [hash])
      }
    })
    yield* supervisor.every("revocations", "check", every, check)
  })
).pipe(Layer.provide(KeysRepo.Default))
